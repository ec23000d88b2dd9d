package io.eve.rdma.control;

import io.eve.rdma.RegionDescriptor;

/** What travels on the control channel; one frame per Netty message, in order per connection. */
public sealed interface ControlFrame {

    /**
     * First frame of every connection: the sender's node id, its incarnation (random per process start) and
     * the lowest message seq it still holds; the receiver need not wait for anything below.
     */
    record Hello(int node, long incarnation, long firstSeq) implements ControlFrame {}

    /** The region the sender registered for the receiver; {@code wantReply} asks for the receiver's own. */
    record Descriptor(RegionDescriptor region, boolean wantReply) implements ControlFrame {}

    /** A message on the slow path: its per-pair seq and its {@code FrameCodec} frame. */
    record Data(long seq, byte[] frame) implements ControlFrame {}

    /** Every message up to {@code seq} was delivered; the sender may forget them. */
    record Ack(long seq) implements ControlFrame {}

    /** The sender stops using RDMA with the receiver (its path failed); the receiver should do the same. */
    record Degrade(String reason) implements ControlFrame {}
}
