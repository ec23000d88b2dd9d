package io.eve.rdma;

/** A message to one peer with its per-pair seq, and whether it went (or will go again) by the control channel. */
final class Outgoing {
    final long seq;
    final byte[] frame;
    boolean viaControl;

    Outgoing(long seq, byte[] frame) {
        this.seq = seq;
        this.frame = frame;
    }
}
