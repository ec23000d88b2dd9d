package io.eve.rdma;

import java.util.concurrent.locks.LockSupport;

/**
 * How the transport's thread waits when a pass found no work (modelled on Agrona's {@code
 * BackoffIdleStrategy}): it spins {@code spins} times, then yields {@code yields} times, then parks for a
 * pause that doubles from {@code minParkNanos} up to {@code maxParkNanos}. Any work resets it. Sends,
 * control frames and doorbells wake a parked thread at once ({@link LockSupport#unpark}); before its first
 * park the transport arms its doorbells ({@link #parksNext()}) and then parks for the longest pause at
 * once; a ring entry that raises no doorbell waits for the park to end.
 *
 * <p>Not thread-safe: one thread idles with it.
 */
final class BackoffIdle {
    private final int spins;
    private final int yields;
    private final long minParkNanos;
    private final long maxParkNanos;
    private int idlePasses;
    private long parkNanos;

    BackoffIdle(int spins, int yields, long minParkNanos, long maxParkNanos) {
        if (spins < 0 || yields < 0 || minParkNanos < 1 || maxParkNanos < minParkNanos) {
            throw new IllegalArgumentException("idle strategy needs spins, yields >= 0 and 1 <= minPark <= maxPark,"
                    + " got " + spins + ", " + yields + ", " + minParkNanos + ", " + maxParkNanos);
        }
        this.spins = spins;
        this.yields = yields;
        this.minParkNanos = minParkNanos;
        this.maxParkNanos = maxParkNanos;
        this.parkNanos = minParkNanos;
    }

    /** Waits after a pass that did {@code work} units of work (none waits longer each time; any resets). */
    void idle(boolean work) {
        idle(work, false);
    }

    /**
     * As {@link #idle(boolean)}; when {@code armed} (a doorbell will wake the thread) a park takes the longest
     * pause at once: one park per idle spell instead of a series of short ones, each a wake-up and a pass.
     */
    void idle(boolean work, boolean armed) {
        if (work) {
            idlePasses = 0;
            parkNanos = minParkNanos;
            return;
        }
        int pass = idlePasses;
        if (pass < Integer.MAX_VALUE) {
            idlePasses = pass + 1;
        }
        if (pass < spins) {
            Thread.onSpinWait();
        } else if (pass < spins + yields) {
            Thread.yield();
        } else if (armed) {
            LockSupport.parkNanos(maxParkNanos);
        } else {
            LockSupport.parkNanos(parkNanos);
            parkNanos = Math.min(parkNanos * 2, maxParkNanos);
        }
    }

    /** Whether the next idle pass parks (the spins and yields are over): the moment to arm doorbells. */
    boolean parksNext() {
        return idlePasses >= spins + yields;
    }

    /** The pause the next park would take, in nanoseconds (for status). */
    long nextParkNanos() {
        return parkNanos;
    }
}
