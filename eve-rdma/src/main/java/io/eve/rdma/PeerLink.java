package io.eve.rdma;

import io.eve.rdma.control.ControlChannel;
import io.eve.rdma.control.ControlFrame;
import io.eve.rdma.ring.Credit;
import io.eve.rdma.ring.Poll;
import io.eve.rdma.ring.RingLayout;
import io.eve.rdma.ring.RingReader;
import io.eve.rdma.ring.RingWriter;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything one node keeps about one peer: the messages to it (waiting for credit, and sent but not yet
 * acknowledged), the {@link Sequencer} that merges what it sends by ring and by control channel, and the
 * current <em>generation</em> of the pair's rings (our region the peer writes into, its reader, and our
 * writer into the peer's region).
 *
 * <p>A generation is {@link PathState#CONNECTING} until both regions are registered and our write path is
 * open, then {@link PathState#OPEN}. A generation still connecting after the connect timeout (a descriptor
 * that never came, a connect that neither completes nor fails) is abandoned like a failed one; the timeout
 * doubles with each consecutive expiry (up to {@link RdmaTransport.Builder#maxReprobeMillis}) and starts
 * over once rings open. Any failure of it (a fabric call, a write, a corrupt entry, a peer
 * that acknowledges nothing within the liveness timeout) makes it {@link
 * PathState#DEGRADED}: the peer is told, and every message the ring carried unacknowledged is resent on the
 * control channel, where everything goes from then on. After a pause that doubles with every failure (up
 * to {@link RdmaTransport.Builder#maxReprobeMillis}) the pair re-probes with a fresh generation, and moves
 * back to rings once they work. Message seqs run on across generations, so the peer's sequencer drops
 * what arrives twice and waits for what is missing: nothing is lost or duplicated by a degrade or upgrade.
 *
 * <p>Blocking fabric calls (register, open with its connect, revoke, close) run on {@code verbs}, one at a
 * time per peer in submission order; their outcome comes back on the transport's thread through {@code
 * node}. Owned by the transport's thread, except the volatile fields read for status.
 */
final class PeerLink {
    private static final Logger LOG = LoggerFactory.getLogger(PeerLink.class);
    private static final int RETAIN_LIMIT = 1 << 20;
    private static final int ACK_EVERY = 64;
    private static final int POLL_BUDGET = 256;
    private static final long CORRUPTION_GRACE_NANOS = 20_000_000L;
    private static final long CREDIT_REFRESH_NANOS = 10_000_000L;
    private static final long CREDIT_IDLE_REFRESH_NANOS = 1_000_000_000L;
    private static final int QUICK_REFRESHES = 3;
    private static final long STABLE_NANOS = 5_000_000_000L;

    /** The path the pair's messages take now. */
    enum PathState {
        /** Rings of the current generation are being set up; messages go by the control channel meanwhile. */
        CONNECTING,
        /** Messages up to the entry size go through the ring. */
        OPEN,
        /** The rings failed; everything goes by the control channel until a re-probe succeeds. */
        DEGRADED
    }

    /** Timeouts and limits of a pair, from the transport's builder. */
    record Settings(
            long livenessNanos,
            int creditQueueLimit,
            long firstReprobeNanos,
            long maxReprobeNanos,
            long connectTimeoutNanos) {}

    /** One generation of the pair's rings. */
    private final class Rings {
        final long generation;
        final ByteBuffer region;
        final RingReader reader;
        RegionDescriptor local;
        RegionDescriptor peer;
        RemoteRegion remote;
        RingWriter writer;
        boolean opening;
        long openedNanos;

        Rings(long generation) {
            this.generation = generation;
            this.region = layout.newRegion();
            this.reader = new RingReader(layout, region);
        }
    }

    final int id;
    private final int self;
    private final OneSidedFabric fabric;
    private final ControlChannel control;
    private final RingLayout layout;
    private final Settings settings;
    private final Executor verbs;
    private final Executor node;
    private final BiConsumer<Long, byte[]> deliver;
    private final Runnable onDegraded;
    private final Runnable onUpgraded;
    private final Runnable onConnectTimeout;
    private final ArrayDeque<Outgoing> queue = new ArrayDeque<>();
    private final ArrayDeque<Outgoing> unacked = new ArrayDeque<>();
    private Sequencer sequencer = new Sequencer();
    private CompletableFuture<?> verbsTail = CompletableFuture.completedFuture(null);
    private Rings rings;
    private long nextSeq = 1;
    private long incarnation;
    private long lastAckSent;
    private long corruptSince;
    private long lastCreditNanos;
    private long lastCreditAcked = -1;
    private long lastCreditConsumed = -1;
    private int quickRefreshes;
    private long lastCreditConsumedSeen;
    private long lastCreditProgressNanos;
    private long lastAckProgressNanos;
    private long reprobeNanos;
    private long reprobeAt;
    private long connectingSince;
    private long connectTimeoutNanos;
    private boolean closed;
    volatile long firstRetained = 1;
    volatile PathState path = PathState.CONNECTING;
    volatile long generation;
    volatile boolean ringOpen;
    volatile long sentByRing;
    volatile long sentByControl;
    volatile long degrades;
    volatile long upgrades;
    volatile long spills;
    volatile long doorbellsRung;
    volatile long connectTimeouts;
    volatile String lastDegradeReason;

    PeerLink(
            int id,
            int self,
            OneSidedFabric fabric,
            ControlChannel control,
            RingLayout layout,
            Settings settings,
            Executor verbs,
            Executor node,
            BiConsumer<Long, byte[]> deliver,
            Runnable onDegraded,
            Runnable onUpgraded,
            Runnable onConnectTimeout) {
        this.id = id;
        this.self = self;
        this.fabric = fabric;
        this.control = control;
        this.layout = layout;
        this.settings = settings;
        this.verbs = verbs;
        this.node = node;
        this.deliver = deliver;
        this.onDegraded = onDegraded;
        this.onUpgraded = onUpgraded;
        this.onConnectTimeout = onConnectTimeout;
        this.reprobeNanos = settings.firstReprobeNanos();
        this.connectTimeoutNanos = settings.connectTimeoutNanos();
    }

    /** Sets up the first generation of rings (registration runs off this thread). */
    void start() {
        begin(1);
    }

    boolean degraded() {
        return path == PathState.DEGRADED;
    }

    private boolean ringReady() {
        return path == PathState.OPEN && rings != null && rings.writer != null;
    }

    void enqueue(byte[] frame, long now) {
        queue.add(new Outgoing(nextSeq++, frame, now));
    }

    /**
     * Moves waiting messages onto a path, in order: the ring while credit lasts, else the control channel;
     * then, if entries went into the ring, rings the peer's doorbell should its thread have gone to sleep.
     */
    void drain(long now) {
        checkWritePath();
        boolean appended = false;
        for (Outgoing next = queue.peek(); next != null; next = queue.peek()) {
            if (ringReady() && next.frame.length <= layout.maxPayload()) {
                if (!rings.writer.tryAppend(next.seq, next.frame, 0, next.frame.length)) {
                    rings.writer.flush();
                    spillBeyondLimit();
                    break;
                }
                appended = true;
                next.postedNanos = now;
                sentByRing++;
            } else {
                sendByControl(next);
            }
            queue.poll();
            retain(next);
        }
        if (appended) {
            // Our entries are placed before we read the peer's sleep record; it wrote that record before its
            // last look at the ring (Dekker): one of the two sides sees the other.
            VarHandle.fullFence();
            wakePeer();
        }
    }

    private void wakePeer() {
        if (ringReady() && rings.writer.wakeIfAsleep()) {
            doorbellsRung++;
        }
    }

    /**
     * Before the transport's thread sleeps: tells the peer, through the credit record of our ring, that we
     * sleep (epoch {@code epoch}) and how far we consumed, so it rings our doorbell for anything beyond.
     * Only an open pair can: while connecting, the peer's entries wait for the longest park.
     */
    void arm(long epoch) {
        if (path == PathState.OPEN && rings != null && rings.remote != null) {
            rings.reader.arm(rings.remote, sequencer.acked(), epoch);
        }
    }

    /** Our thread is awake again: credit records stop carrying the sleep epoch. */
    void disarm() {
        if (rings != null) {
            rings.reader.disarm();
        }
    }

    /**
     * A burst is not a fault: while the ring waits for credit, the oldest waiting messages beyond {@code
     * creditQueueLimit} go by the control channel (in seq order, so {@code unacked} stays sorted) and the
     * rings stay open. Only a lack of progress (the liveness timeout) degrades the pair.
     */
    private void spillBeyondLimit() {
        int spilled = 0;
        while (queue.size() > settings.creditQueueLimit()) {
            Outgoing oldest = queue.poll();
            sendByControl(oldest);
            retain(oldest);
            spilled++;
        }
        if (spilled > 0) {
            spills++;
            LOG.debug(
                    "node {}: {} messages to node {} went by the control channel while the ring waited for credit",
                    self,
                    spilled,
                    id);
        }
    }

    private void sendByControl(Outgoing message) {
        message.viaControl = true;
        sentByControl++;
        control.send(id, new ControlFrame.Data(message.seq, message.frame));
    }

    private void retain(Outgoing message) {
        unacked.add(message);
        if (unacked.size() > RETAIN_LIMIT) {
            unacked.poll();
            firstRetained = unacked.isEmpty() ? nextSeq : unacked.peek().seq;
        }
    }

    /**
     * Polls our ring for this peer, reads its credit, acknowledges what was delivered, checks the ring's
     * liveness and re-probes a degraded pair when its pause is over.
     */
    boolean poll(long now) {
        if (closed) {
            return false;
        }
        boolean progress = false;
        if (ringReady()) {
            Credit credit = rings.writer.credit();
            if (credit.consumed() != lastCreditConsumedSeen) {
                lastCreditConsumedSeen = credit.consumed();
                lastCreditProgressNanos = now;
            }
            release(credit.acked(), now);
            wakePeer();
        }
        Poll result = Poll.EMPTY;
        for (int i = 0; i < POLL_BUDGET && path != PathState.DEGRADED && rings != null; i++) {
            result = rings.reader.poll((seq, frame) -> sequencer.accept(seq, frame, deliver));
            if (result != Poll.DELIVERED) {
                break;
            }
            progress = true;
        }
        checkCorruption(result, now);
        acknowledge(result != Poll.DELIVERED, now);
        checkLiveness(now);
        checkConnecting(now);
        if (path == PathState.DEGRADED && now - reprobeAt >= 0) {
            reprobe();
        }
        return progress;
    }

    private void checkCorruption(Poll result, long now) {
        if (result != Poll.CORRUPT) {
            corruptSince = 0;
        } else if (corruptSince == 0) {
            corruptSince = now;
        } else if (now - corruptSince > CORRUPTION_GRACE_NANOS) {
            degrade(
                    "an entry from node " + id + " failed its checksum at ring position " + rings.reader.consumed(),
                    now);
        }
    }

    private void checkLiveness(long now) {
        if (path != PathState.OPEN) {
            return;
        }
        long limitMillis = settings.livenessNanos() / 1_000_000;
        // Messages from before these rings opened (resent on the control channel) count from the opening; a
        // backlog the peer works through slowly is progress, not a fault: count from the last progress.
        long opened = rings == null ? now : rings.openedNanos;
        Outgoing oldest = unacked.peek();
        if (oldest != null
                && now - Math.max(Math.max(oldest.postedNanos, opened), lastAckProgressNanos)
                        > settings.livenessNanos()) {
            degrade(
                    "liveness timeout: node " + id + " acknowledged nothing for " + limitMillis
                            + " ms (oldest unacknowledged seq "
                            + oldest.seq + ")",
                    now);
            return;
        }
        Outgoing waiting = queue.peek();
        if (waiting != null
                && now - Math.max(Math.max(waiting.postedNanos, opened), lastCreditProgressNanos)
                        > settings.livenessNanos()) {
            degrade("liveness timeout: node " + id + " gave no ring credit for " + limitMillis + " ms", now);
        }
    }

    /**
     * Abandons a generation that is still connecting after the connect timeout: whatever it waits for (our
     * registration, the peer's descriptor, the connect of our write path) may never come, and nothing else
     * would ever retire it. The pair goes to the control channel and re-probes like after a failure.
     */
    private void checkConnecting(long now) {
        if (path != PathState.CONNECTING || now - connectingSince <= connectTimeoutNanos) {
            return;
        }
        Rings current = rings;
        String missing;
        if (current == null || current.local == null) {
            missing = "our ring for node " + id + " is not registered yet";
        } else if (current.peer == null) {
            missing = "node " + id + " sent no descriptor of its ring";
        } else {
            missing = "connecting our write path to node " + id + " has not finished";
        }
        long waitedMillis = connectTimeoutNanos / 1_000_000;
        connectTimeouts++;
        onConnectTimeout.run();
        connectTimeoutNanos =
                Math.min(connectTimeoutNanos * 2, Math.max(settings.connectTimeoutNanos(), settings.maxReprobeNanos()));
        degrade(
                "connect timeout: the rings of generation " + generation + " with node " + id + " were not open after "
                        + waitedMillis + " ms (" + missing + ")",
                now);
    }

    private void acknowledge(boolean idle, long now) {
        long acked = sequencer.acked();
        if (path == PathState.OPEN && rings != null && rings.remote != null) {
            long consumed = rings.reader.consumed();
            if (acked != lastCreditAcked || consumed != lastCreditConsumed) {
                lastCreditAcked = acked;
                lastCreditConsumed = consumed;
                quickRefreshes = QUICK_REFRESHES;
            }
            // A credit record can be overtaken by an older one: write it again a few times soon after it
            // changed, then rarely, so an idle pair does not write every few milliseconds.
            long pause = quickRefreshes > 0 ? CREDIT_REFRESH_NANOS : CREDIT_IDLE_REFRESH_NANOS;
            boolean refresh = idle && now - lastCreditNanos > pause;
            rings.reader.publishCredit(rings.remote, acked, idle, refresh);
            if (refresh) {
                lastCreditNanos = now;
                quickRefreshes = Math.max(0, quickRefreshes - 1);
            }
            checkWritePath();
            return;
        }
        if (acked > lastAckSent && (idle || acked - lastAckSent >= ACK_EVERY)) {
            control.send(id, new ControlFrame.Ack(acked));
            lastAckSent = acked;
        }
    }

    private void checkWritePath() {
        if (path != PathState.OPEN || rings == null || rings.writer == null) {
            return;
        }
        Throwable failure = rings.writer.failure();
        if (failure != null) {
            degrade("the RDMA write path to node " + id + " failed: " + failure.getMessage(), System.nanoTime());
        }
    }

    void onFrame(ControlFrame frame, long now) {
        if (frame instanceof ControlFrame.Data data) {
            sequencer.accept(data.seq(), data.frame(), deliver);
        } else if (frame instanceof ControlFrame.Ack ack) {
            release(ack.seq(), now);
        } else if (frame instanceof ControlFrame.Descriptor descriptor) {
            onDescriptor(descriptor, now);
        } else if (frame instanceof ControlFrame.Hello hello) {
            onHello(hello, now);
        } else if (frame instanceof ControlFrame.Degrade degrade) {
            onDegrade(degrade, now);
        }
    }

    private void onHello(ControlFrame.Hello hello, long now) {
        if (incarnation != 0 && incarnation != hello.incarnation()) {
            // A restarted peer starts its seqs and rings afresh: so does our side of the pair, in a
            // generation above any the old process knew.
            LOG.info("node {}: node {} restarted; its messages count from seq {} again", self, id, hello.firstSeq());
            sequencer = new Sequencer();
            lastAckSent = 0;
            // Our connection may still lead to the old process, which reads nothing: dial the new one.
            control.reconnect(id);
            teardown();
            begin(generation + 1);
        }
        incarnation = hello.incarnation();
        sequencer.skipTo(hello.firstSeq(), deliver);
    }

    private void onDegrade(ControlFrame.Degrade frame, long now) {
        if (frame.generation() < generation) {
            return;
        }
        if (frame.generation() > generation) {
            teardown();
            generation = frame.generation();
            rings = null;
        }
        if (path != PathState.DEGRADED) {
            fail("node " + id + " stopped using RDMA with us: " + frame.reason(), now, false);
        }
    }

    private void onDescriptor(ControlFrame.Descriptor descriptor, long now) {
        long offered = descriptor.generation();
        if (offered < generation) {
            LOG.debug(
                    "node {}: ignoring node {}'s descriptor of generation {} (ours is {})",
                    self,
                    id,
                    offered,
                    generation);
            return;
        }
        if (offered > generation) {
            teardown();
            begin(offered);
        }
        if (path == PathState.DEGRADED || rings == null) {
            return;
        }
        if (rings.peer != null) {
            if (rings.peer.epoch() != descriptor.region().epoch()) {
                degrade("node " + id + " registered a second region in generation " + generation, now);
            }
            return;
        }
        rings.peer = descriptor.region();
        openIfReady();
    }

    /** Starts generation {@code next}: a fresh region, registered off this thread, then announced. */
    private void begin(long next) {
        Rings created = new Rings(next);
        rings = created;
        generation = next;
        path = PathState.CONNECTING;
        connectingSince = System.nanoTime();
        ringOpen = false;
        lastCreditAcked = -1;
        lastCreditConsumed = -1;
        corruptSince = 0;
        offVerbs(() -> fabric.register(id, created.region), (descriptor, error) -> {
            if (rings != created || path == PathState.DEGRADED) {
                return;
            }
            if (error != null) {
                degrade("registering our ring for node " + id + " failed: " + message(error), System.nanoTime());
                return;
            }
            created.local = descriptor;
            control.send(id, new ControlFrame.Descriptor(descriptor, created.generation));
            openIfReady();
        });
    }

    private void openIfReady() {
        Rings current = rings;
        if (current == null || current.local == null || current.peer == null || current.opening) {
            return;
        }
        current.opening = true;
        RegionDescriptor target = current.peer;
        offVerbs(() -> fabric.open(id, target), (remote, error) -> {
            if (rings != current || path == PathState.DEGRADED || closed) {
                if (remote != null) {
                    offVerbs(() -> closeRemote(remote), (ignored, failure) -> {});
                }
                return;
            }
            if (error != null) {
                degrade("opening the RDMA write path to node " + id + " failed: " + message(error), System.nanoTime());
                return;
            }
            current.remote = remote;
            current.writer = new RingWriter(layout, remote, current.region);
            current.openedNanos = System.nanoTime();
            lastCreditConsumedSeen = 0;
            path = PathState.OPEN;
            ringOpen = true;
            connectTimeoutNanos = settings.connectTimeoutNanos();
            if (current.generation > 1) {
                upgrades++;
                onUpgraded.run();
                LOG.info("node {}: RDMA path to node {} open again (generation {})", self, id, current.generation);
            } else {
                LOG.debug("node {}: RDMA path to node {} open", self, id);
            }
        });
    }

    private void reprobe() {
        LOG.info("node {}: probing the RDMA path to node {} again (generation {})", self, id, generation + 1);
        begin(generation + 1);
    }

    /**
     * Control frames to the peer may have been lost (a connection broke, or frames were dropped before the
     * first one): resend what went that way and is not acknowledged, and our descriptor of the generation
     * being set up. The peer's sequencer drops what it had.
     */
    void resendByControl() {
        if (rings != null && rings.local != null && path != PathState.DEGRADED) {
            control.send(id, new ControlFrame.Descriptor(rings.local, rings.generation));
        }
        for (Outgoing message : unacked) {
            if (message.viaControl) {
                control.send(id, new ControlFrame.Data(message.seq, message.frame));
            }
        }
    }

    private void release(long acked, long now) {
        boolean released = false;
        while (!unacked.isEmpty() && unacked.peek().seq <= acked) {
            unacked.poll();
            released = true;
        }
        if (released) {
            lastAckProgressNanos = now;
        }
        firstRetained = unacked.isEmpty() ? (queue.isEmpty() ? nextSeq : queue.peek().seq) : unacked.peek().seq;
    }

    /** Stops using this generation's rings, tells the peer, and resends on the control channel (see the class). */
    void degrade(String reason, long now) {
        if (path != PathState.DEGRADED) {
            fail(reason, now, true);
        }
    }

    private void fail(String reason, long now, boolean tellPeer) {
        boolean wasStable = rings != null && rings.openedNanos != 0 && now - rings.openedNanos > STABLE_NANOS;
        reprobeNanos = wasStable ? settings.firstReprobeNanos() : reprobeNanos;
        reprobeAt = now + reprobeNanos;
        LOG.warn(
                "node {}: using the control channel for node {} (generation {}; probing RDMA again in {} ms): {}",
                self,
                id,
                generation,
                reprobeNanos / 1_000_000,
                reason);
        reprobeNanos = Math.min(reprobeNanos * 2, settings.maxReprobeNanos());
        lastDegradeReason = reason;
        degrades++;
        onDegraded.run();
        teardown();
        path = PathState.DEGRADED;
        if (tellPeer) {
            control.send(id, new ControlFrame.Degrade(generation, reason));
        }
    }

    /** Drops the current generation's rings: revokes the peer's access and closes our path, off this thread. */
    private void teardown() {
        Rings old = rings;
        ringOpen = false;
        if (old == null) {
            return;
        }
        rings = null;
        offVerbs(
                () -> {
                    fabric.revoke(id);
                    if (old.remote != null) {
                        closeRemote(old.remote);
                    }
                    return null;
                },
                (ignored, error) -> {
                    if (error != null) {
                        LOG.warn("node {}: releasing the old ring of node {}: {}", self, id, message(error));
                    }
                });
        // Anything this generation carried and the peer did not acknowledge goes again by the control channel.
        for (Outgoing message : unacked) {
            if (!message.viaControl) {
                sendByControl(message);
            }
        }
    }

    private static Void closeRemote(RemoteRegion remote) {
        remote.close();
        return null;
    }

    private <T> void offVerbs(Supplier<T> call, BiConsumer<T, Throwable> then) {
        verbsTail = verbsTail
                .handle((ignored, error) -> null)
                .thenApplyAsync(ignored -> call.get(), verbs)
                .whenComplete((result, error) -> node.execute(() -> then.accept(result, unwrap(error))));
    }

    private static Throwable unwrap(Throwable error) {
        Throwable inner = error;
        while (inner instanceof java.util.concurrent.CompletionException && inner.getCause() != null) {
            inner = inner.getCause();
        }
        return inner;
    }

    private static String message(Throwable error) {
        return error.getMessage() == null ? error.toString() : error.getMessage();
    }

    /** Releases the rings at transport close, on the caller's thread after the transport's thread stopped. */
    void close() {
        closed = true;
        Rings old = rings;
        rings = null;
        if (old != null && old.remote != null) {
            old.remote.close();
        }
    }
}
