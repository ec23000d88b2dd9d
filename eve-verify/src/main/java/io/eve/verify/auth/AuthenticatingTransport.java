package io.eve.verify.auth;

import io.eve.protocol.Message;
import io.eve.transport.Transport;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Transport} whose traffic between processes carries authenticators (Eve §3, docs/quorum.md,
 * "Authenticators"), around any other transport. Messages to processes with keys leave sealed in
 * {@code Authenticated(self, frame, tags)}; what arrives goes through {@link Envelopes#inbound}: an
 * envelope with a wrong origin, a bad tag or an undecodable frame, or a bare message from a process with
 * keys, is dropped and counted ({@link #rejected()}), with a WARN at most once per second per sender.
 * Evidence ({@code Prepare}, {@code CommitVote}, {@code ViewChange}) is delivered still sealed for the
 * verifier to keep and forward (it checks its tag again); everything else unwrapped. Clients hold no keys:
 * their requests pass plain, and replies to them leave plain.
 *
 * <p>Replays are not stopped here: the protocol ignores a message it already counted (one vote per
 * verifier, view and batch; older views are ignored), so a replayed envelope has no second effect.
 *
 * <p>Thread-safe as the transport it wraps; the receiver runs on that transport's thread. This is runtime
 * code: it owns the clock of its rate-limited log, nothing of the protocol.
 */
public final class AuthenticatingTransport implements Transport {
    private static final Logger LOG = LoggerFactory.getLogger(AuthenticatingTransport.class);
    private static final long LOG_INTERVAL_NANOS = 1_000_000_000L;

    private final Transport inner;
    private final Envelopes envelopes;
    private final LongSupplier nanoClock;
    private final LongAdder rejected = new LongAdder();
    private final Map<Integer, AtomicLong> lastWarning = new ConcurrentHashMap<>();

    /** Wraps {@code inner}, whose {@link Transport#self()} must be the process {@code envelopes} seals for. */
    public AuthenticatingTransport(Transport inner, Envelopes envelopes) {
        this(inner, envelopes, System::nanoTime);
    }

    /** As {@link #AuthenticatingTransport(Transport, Envelopes)}, with the clock of the rate-limited log. */
    public AuthenticatingTransport(Transport inner, Envelopes envelopes, LongSupplier nanoClock) {
        this.inner = Objects.requireNonNull(inner, "inner");
        this.envelopes = Objects.requireNonNull(envelopes, "envelopes");
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        if (inner.self() != envelopes.self()) {
            throw new IllegalArgumentException(
                    "the transport is process " + inner.self() + " but the keys seal for " + envelopes.self());
        }
    }

    @Override
    public int self() {
        return inner.self();
    }

    @Override
    public void start(Receiver receiver) {
        Objects.requireNonNull(receiver, "receiver");
        inner.start((from, message) -> onMessage(from, message, receiver));
    }

    @Override
    public void send(int to, Message message) {
        inner.send(to, envelopes.outbound(to, message));
    }

    @Override
    public void flush() {
        inner.flush();
    }

    /** Messages dropped because they failed authentication (for {@code eve.auth.rejected}). */
    public long rejected() {
        return rejected.sum();
    }

    @Override
    public void close() {
        inner.close();
    }

    private void onMessage(int from, Message message, Receiver receiver) {
        Envelopes.Inbound inbound = envelopes.inbound(from, message);
        if (inbound.accepted()) {
            receiver.onMessage(from, inbound.message());
            return;
        }
        rejected.increment();
        long now = nanoClock.getAsLong();
        // Senders without keys share one entry, so made-up ids cannot grow the map.
        int bucket = envelopes.isMember(from) ? from : -1;
        AtomicLong last = lastWarning.computeIfAbsent(bucket, id -> new AtomicLong(now - LOG_INTERVAL_NANOS));
        long previous = last.get();
        if (now - previous >= LOG_INTERVAL_NANOS && last.compareAndSet(previous, now)) {
            LOG.warn(
                    "node {}: dropped a message from {}: {} ({} rejected in all)",
                    self(),
                    from,
                    inbound.rejection(),
                    rejected.sum());
        }
    }
}
