package io.eve.rdma.disni;

/**
 * Selective signalling (as in DARE/APUS): only every {@code interval}-th write asks for a completion, which
 * also vouches for every earlier write on the queue pair; the interval must stay below the send queue depth
 * so unsignalled work requests never fill it. Not thread-safe.
 */
final class SignalPolicy {
    private final int interval;
    private int unsignaled;

    SignalPolicy(int interval) {
        if (interval < 1) {
            throw new IllegalArgumentException("the signal interval must be at least 1, got " + interval);
        }
        this.interval = interval;
    }

    /** Whether the next write is signalled; {@code force} signals it regardless (a flush). */
    boolean next(boolean force) {
        if (force || ++unsignaled >= interval) {
            unsignaled = 0;
            return true;
        }
        return false;
    }

    /** Unsignalled writes posted since the last signalled one. */
    int unsignaled() {
        return unsignaled;
    }
}
