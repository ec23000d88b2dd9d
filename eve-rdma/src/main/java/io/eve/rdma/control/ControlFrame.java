package io.eve.rdma.control;

import io.eve.rdma.RegionDescriptor;

/** What travels on the control channel; one frame per Netty message, in order per connection. */
public sealed interface ControlFrame {

    /**
     * First frame of every connection: the sender's node id, its incarnation (random per process start) and
     * the lowest message seq it still holds; the receiver need not wait for anything below.
     */
    record Hello(int node, long incarnation, long firstSeq) implements ControlFrame {}

    /**
     * The region the sender registered for the receiver in ring generation {@code generation}. A pair's
     * rings start at generation 1; every re-probe after a degrade, and every restart of either node, opens a
     * higher one, and both nodes follow the highest they have seen. Each node sends one per generation.
     */
    record Descriptor(RegionDescriptor region, long generation) implements ControlFrame {}

    /** A message on the slow path: its per-pair seq and its {@code FrameCodec} frame. */
    record Data(long seq, byte[] frame) implements ControlFrame {}

    /** Every message up to {@code seq} was delivered; the sender may forget them. */
    record Ack(long seq) implements ControlFrame {}

    /**
     * The sender stops using the rings of {@code generation} with the receiver (its path failed); the
     * receiver should do the same, and resend on the control channel what the ring carried unacknowledged.
     */
    record Degrade(long generation, String reason) implements ControlFrame {}
}
