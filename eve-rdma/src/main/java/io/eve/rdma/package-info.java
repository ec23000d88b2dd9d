/**
 * The RDMA transport (DESIGN.md section 10): {@link io.eve.rdma.RdmaTransport} sends small messages as
 * entries of a ring in the receiver's memory, written with one-sided RDMA writes through a {@link
 * io.eve.rdma.OneSidedFabric}, and everything else over a Netty control channel; {@link
 * io.eve.rdma.TransportSelector} picks Netty or RDMA ({@code netty | rdma | auto}) after an {@link
 * io.eve.rdma.RdmaProbe} that never touches DiSNI's native initializer.
 *
 * <pre>
 *  send ─▶ [ring entry ≤ max payload] ─ one-sided write ─▶ receiver's ring for this sender ─ poll ─▶ deliver
 *       └▶ [larger, or path degraded] ─ Netty control channel ─────────────────────────────┘ (seq order)
 * </pre>
 *
 * <p>Sub-packages: {@code ring} (entry format, writer, reader, credits), {@code memory} (an in-memory
 * fabric with fault injection, for tests), {@code disni} (the DiSNI 2.1 fabric, loaded only after the
 * probe passes), {@code control} (the Netty control channel).
 */
package io.eve.rdma;
