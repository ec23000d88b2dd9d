package io.eve.verify.sim;

import io.eve.Reply;

/**
 * What a {@link SimClient} asks and how it judges what it is told; the client itself only sends, resends,
 * follows redirects and, for the quorum profiles, waits for {@code r + 1} matching replies. Single-threaded.
 */
interface SimWorkload {
    /** The payload of the client's request {@code seq}, first sent at {@code now}. */
    byte[] invoke(long seq, long now);

    /**
     * The client accepted {@code reply} to its request {@code seq} at {@code now}; what is wrong with it
     * as far as this workload can tell at once, or {@code null}.
     */
    String onReply(long seq, Reply reply, long now);

    /** Whether the client gives up on a request that waits too long while faults are injected. */
    boolean abandons();

    /** The client gave up on request {@code seq} at {@code now}: it may still take effect, or never. */
    void onAbandoned(long seq, long now);
}
