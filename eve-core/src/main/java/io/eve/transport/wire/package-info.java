/**
 * The binary wire format: {@link io.eve.transport.wire.FrameCodec} writes each protocol message as one
 * length-prefixed, versioned, checksummed frame and reads frames from the network as hostile input,
 * failing only with {@link io.eve.transport.wire.FrameException}. Free of any networking library, so
 * every transport that carries bytes (Netty, the RDMA control plane) frames messages the same way.
 * Layouts are documented in docs/protocol.md, "Wire format".
 */
package io.eve.transport.wire;
