/**
 * An in-memory {@link io.eve.rdma.OneSidedFabric} for tests: nodes of one JVM write into each other's
 * registered buffers, and a {@link io.eve.rdma.memory.WriteFaults} policy can tear, defer (delay and
 * reorder), drop or corrupt each write, or crash its writer half-way, the faults the ring protocol must
 * survive.
 */
package io.eve.rdma.memory;
