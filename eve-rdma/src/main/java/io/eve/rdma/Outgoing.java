package io.eve.rdma;

/**
 * A message to one peer with its per-pair seq, whether it went (or will go again) by the control channel,
 * and when it was queued or last posted to a ring (the liveness timeout counts from there).
 */
final class Outgoing {
    final long seq;
    final byte[] frame;
    boolean viaControl;
    long postedNanos;

    Outgoing(long seq, byte[] frame, long postedNanos) {
        this.seq = seq;
        this.frame = frame;
        this.postedNanos = postedNanos;
    }
}
