package io.eve.rdma.verbs;

/**
 * Work-request ids of one queue pair (one write path of one ring generation), unique across every queue
 * pair a fabric opens. A completion queue is dispatched by queue-pair number, and a device reuses the number
 * of a destroyed queue pair: a completion of the old one still in the queue (writes flushed when it was torn
 * down) then reaches the new one. With ids that restarted at 1 per queue pair, such a stale completion could
 * complete or fail the new pair's writes; here the upper bits carry the path's number, so {@link #owns}
 * tells a stale completion from one of ours.
 *
 * <pre>
 * wr_id: bit 63 = 0 | bits 62..40 path number (1 .. 2^23 - 1, then wraps) | bits 39..0 counter from 1
 * </pre>
 *
 * Not thread-safe: the posting thread owns it ({@link #owns} is safe from any thread).
 */
public final class WorkRequestIds {
    static final int COUNTER_BITS = 40;
    static final long COUNTER_MASK = (1L << COUNTER_BITS) - 1;
    static final long MAX_PATH = (1L << 23) - 1;

    private final long path;
    private long counter;

    /** Ids of path {@code path}; a number above {@link #MAX_PATH} wraps (it must differ from recent ones). */
    public WorkRequestIds(long path) {
        if (path < 1) {
            throw new IllegalArgumentException("a path number must be positive, got " + path);
        }
        this.path = (path - 1) % MAX_PATH + 1;
    }

    /** The next id: increasing within the path until the 40-bit counter wraps after 2^40 - 1 requests. */
    public long next() {
        counter = counter == COUNTER_MASK ? 1 : counter + 1;
        return (path << COUNTER_BITS) | counter;
    }

    /** Whether {@code wrId} was handed out by this path (not by an earlier queue pair with the same number). */
    public boolean owns(long wrId) {
        return pathOf(wrId) == path;
    }

    /** The path number an id carries. */
    public static long pathOf(long wrId) {
        return wrId >>> COUNTER_BITS;
    }

    /** This path's number. */
    public long path() {
        return path;
    }
}
