package io.eve.rdma;

import java.nio.ByteBuffer;

/**
 * The one-sided operations the ring protocol needs, and nothing else (DESIGN.md section 10): register local
 * memory for one peer to write, revoke that peer's access, and open a write path into a peer's region.
 * Implemented over DiSNI ({@code io.eve.rdma.disni}) and in memory ({@code io.eve.rdma.memory}).
 *
 * <p>Registrations are per peer, so revoking one peer leaves the others writing. Thread-safe.
 */
public interface OneSidedFabric extends AutoCloseable {

    /**
     * Registers {@code region} (a direct buffer, which the caller keeps and polls) so that {@code peer}, and
     * only it, may write into it; replaces (and revokes) an earlier registration for that peer.
     *
     * @return the descriptor to hand to {@code peer} over the control plane
     */
    RegionDescriptor register(int peer, ByteBuffer region);

    /** Deregisters the region of {@code peer}: its later writes fail with {@link RemoteAccessException}. */
    void revoke(int peer);

    /** Opens the write path into the region {@code peer} registered for this node and described as given. */
    RemoteRegion open(int peer, RegionDescriptor remote);

    @Override
    void close();
}
