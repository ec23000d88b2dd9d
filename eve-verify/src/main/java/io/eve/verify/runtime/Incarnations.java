package io.eve.verify.runtime;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The numbers a verifier's starts go by (its join nonce): each above those of the process's earlier starts, so
 * that a message of an earlier incarnation delivered late is told apart from one of the current incarnation
 * (docs/quorum.md, "Rejoining", "Ordered incarnations").
 *
 * <p>A number is the wall clock in microseconds since the epoch, and above every number drawn before in this JVM
 * (several nodes in one JVM, two starts within a microsecond). Across processes the order holds as long as the
 * clock does not go back across a restart by more than the time the restart took; if it does, the other
 * verifiers refuse to answer the new incarnation's queries as late ones (logged) and it cannot rejoin until it
 * starts again with a later clock: a loss of liveness, never of safety.
 *
 * <p>Thread-safe.
 */
public final class Incarnations {
    private static final AtomicLong LAST = new AtomicLong();

    private Incarnations() {}

    /** The number of a start happening now. */
    public static long next() {
        return next(ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now()));
    }

    /** The number of a start at {@code wallMicros}: that, or one above the last number drawn if that is higher. */
    static long next(long wallMicros) {
        return LAST.accumulateAndGet(wallMicros, (last, now) -> Math.max(last + 1, now));
    }
}
