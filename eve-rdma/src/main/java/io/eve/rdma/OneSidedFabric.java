package io.eve.rdma;

import java.nio.ByteBuffer;
import java.util.function.IntConsumer;

/**
 * The one-sided operations the ring protocol needs, and nothing else (DESIGN.md section 10): register local
 * memory for one peer to write, revoke that peer's access, and open a write path into a peer's region.
 * Besides writes, a write path can ring the owner's doorbell, the one event a one-sided write raises.
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

    /**
     * Where this node's doorbells go: {@code onDoorbell} gets the id of a peer that rang ({@link
     * RemoteRegion#doorbell()}), on a thread of the fabric's (DiSNI's completion thread), and must only
     * wake someone. Set before the first registration; replaces an earlier listener.
     */
    void doorbells(IntConsumer onDoorbell);

    /** Opens the write path into the region {@code peer} registered for this node and described as given. */
    RemoteRegion open(int peer, RegionDescriptor remote);

    @Override
    void close();
}
