package io.eve.verify.primarybackup;

import io.eve.protocol.Message;
import io.eve.protocol.Message.FenceAnswer;
import io.eve.protocol.Message.FenceProbe;
import io.eve.protocol.Message.FenceReport;
import io.eve.protocol.Message.FenceRequest;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The witness of a primary-backup pair as a deterministic state machine (docs/primary-backup.md, "Fencing
 * with a witness"). It holds no application state, only {@link WitnessState}, and grants the right to commit
 * alone:
 *
 * <ul>
 *   <li>Solo(u) from X, the primary of view u: granted iff W.view &lt; u and not (W solo and held by another),
 *       or W.view == u and W.holder == X; a grant sets W = (u, solo, X).
 *   <li>Pair(u) from X: if W == (u, solo, X), W turns to pair mode.
 * </ul>
 *
 * Every request is answered with W after it was handled (saved first, when there is a store), so requests and
 * answers are idempotent. Without a store, a started witness answers nothing until both replicas have
 * reported their state in answer to its probe: the grant it may have made before it stopped is still held
 * by one of them, and it rebuilds W from what they say.
 *
 * <p>Not thread-safe: one protocol thread calls it.
 */
public final class Witness {
    private static final Logger LOG = LoggerFactory.getLogger(Witness.class);

    private final int self;
    private final int[] replicas;
    private final Optional<WitnessStore> store;
    private final long probeIntervalNanos;
    private final LongSupplier nonces;
    private final BiConsumer<Integer, Message> send;

    private WitnessState state;
    private long nonce;
    private long lastProbeAt;
    private final TreeMap<Integer, FenceReport> reports = new TreeMap<>();

    /**
     * @param replicas the pair's two ids; {@code replicas[view % 2]} is the primary of a view
     * @param store where the state survives a restart, or empty (then a restart waits for both replicas)
     * @param probeIntervalNanos how often a witness that waits for the replicas' reports asks again
     * @param nonces random numbers, to tell a probe's reports from older ones
     */
    public Witness(
            int self,
            int[] replicas,
            Optional<WitnessStore> store,
            long probeIntervalNanos,
            LongSupplier nonces,
            BiConsumer<Integer, Message> send) {
        if (replicas.length != 2 || replicas[0] == replicas[1] || replicas[0] == self || replicas[1] == self) {
            throw new IllegalArgumentException("a witness serves two replicas other than itself, got "
                    + java.util.Arrays.toString(replicas) + " for witness " + self);
        }
        this.self = self;
        this.replicas = replicas.clone();
        this.store = store;
        this.probeIntervalNanos = probeIntervalNanos;
        this.nonces = nonces;
        this.send = send;
    }

    public void start(long now) {
        if (store.isPresent()) {
            state = store.get().load().orElse(new WitnessState(0, false, replicas[0]));
            LOG.info("node {}: witness of {} and {} starts in {}", self, replicas[0], replicas[1], state);
        } else {
            LOG.info(
                    "node {}: witness of {} and {} without storage: grants nothing until both report",
                    self,
                    replicas[0],
                    replicas[1]);
            probe(now);
        }
    }

    /** The state, or empty while a witness without storage waits for the replicas' reports. */
    public Optional<WitnessState> state() {
        return Optional.ofNullable(state);
    }

    public void onMessage(int from, Message message, long now) {
        if (from != replicas[0] && from != replicas[1]) {
            LOG.debug("node {}: witness ignores {} from {}, which is not a replica", self, message, from);
        } else if (message instanceof FenceRequest request) {
            onRequest(from, request);
        } else if (message instanceof FenceReport report) {
            onReport(from, report);
        }
    }

    public void onTick(long now) {
        if (state == null && now - lastProbeAt >= probeIntervalNanos) {
            probe(now);
        }
    }

    private void onRequest(int from, FenceRequest request) {
        if (state == null) {
            return; // not answered until the state is rebuilt; the replica repeats its request
        }
        WitnessState next = request.solo() ? solo(from, request.view()) : pair(from, request.view());
        if (!next.equals(state)) {
            store.ifPresent(s -> s.save(next));
            LOG.info("node {}: witness {} -> {} on {} from node {}", self, state, next, request, from);
            state = next;
        }
        send.accept(from, new FenceAnswer(request.requestId(), state.view(), state.solo(), state.holder()));
    }

    private WitnessState solo(int from, long view) {
        if (primaryOf(view) != from) {
            return state; // only the primary of a view may commit alone in it
        }
        boolean later = state.view() < view && !(state.solo() && state.holder() != from);
        boolean again = state.view() == view && state.holder() == from;
        return later || again ? new WitnessState(view, true, from) : state;
    }

    private WitnessState pair(int from, long view) {
        return state.equals(new WitnessState(view, true, from)) ? new WitnessState(view, false, from) : state;
    }

    private void onReport(int from, FenceReport report) {
        if (state != null || report.nonce() != nonce) {
            return; // reports sent before this witness's probe may predate a grant
        }
        reports.put(from, report);
        if (reports.size() == 2) {
            state = rebuilt();
            LOG.info("node {}: witness rebuilt {} from the replicas' reports {}", self, state, reports);
        }
    }

    /** The one replica that says it holds the right to commit alone keeps it; otherwise pair mode. */
    private WitnessState rebuilt() {
        long view = 0;
        for (FenceReport report : reports.values()) {
            view = Math.max(view, report.view());
        }
        for (var entry : reports.entrySet()) {
            if (entry.getValue().soloHeld()) {
                return new WitnessState(entry.getValue().view(), true, entry.getKey());
            }
        }
        return new WitnessState(view, false, primaryOf(view));
    }

    private void probe(long now) {
        if (nonce == 0) {
            do {
                nonce = nonces.getAsLong();
            } while (nonce == 0);
        }
        lastProbeAt = now;
        for (int replica : replicas) {
            send.accept(replica, new FenceProbe(nonce));
        }
    }

    private int primaryOf(long view) {
        return replicas[(int) (view % 2)];
    }
}
