package io.eve.rdma;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * A write path into one peer's registered region. Writes are posted in order, placed asynchronously (in
 * no guaranteed byte order, possibly torn until complete) and completed in order. With selective
 * signalling an unsignalled write completes when a later signalled one does; {@link #flush()} signals
 * now. After one write fails the path is broken: every outstanding and later write fails too.
 *
 * <p>Not thread-safe: one thread (the transport's) writes.
 */
public interface RemoteRegion extends AutoCloseable {

    RegionDescriptor descriptor();

    /**
     * Posts a write of {@code source}'s remaining bytes at {@code offset} of the peer's region. The bytes are
     * captured before this returns, so the caller may reuse {@code source}.
     *
     * @return completes when the bytes are placed in the peer's memory, or fails with {@link
     *     FabricException}
     */
    CompletableFuture<Void> write(long offset, ByteBuffer source);

    /**
     * Posts a doorbell behind the writes posted so far: the owner's fabric hands our id to its doorbell
     * listener ({@link OneSidedFabric#doorbells}) once those writes are placed. On verbs this is a zero-length
     * {@code IBV_WR_RDMA_WRITE_WITH_IMM}: it consumes a receive the owner posted and raises a completion on the
     * owner's completion queue, whose completion channel wakes the thread blocked on it. It counts against the
     * send queue like a write ({@link #postSlots()}), and fails like one when the path is broken.
     *
     * @return completes when the doorbell was delivered, or fails with {@link FabricException}
     */
    CompletableFuture<Void> doorbell();

    /**
     * How many more writes may be posted now without overfilling the path's send queue (a queue pair's
     * outstanding work requests); the ring waits, as for credit, when it needs more than this.
     */
    default int postSlots() {
        return Integer.MAX_VALUE;
    }

    /** The largest write this path posts inline (the queue pair's {@code max_inline_data}); 0 for none. */
    default int maxInline() {
        return 0;
    }

    /** Makes every posted write complete (or fail) without waiting for more writes. */
    void flush();

    /** Whether a write has failed; then nothing more goes through this path. */
    default boolean broken() {
        return failure() != null;
    }

    /**
     * The error that broke this path (for DiSNI the failed completion's status, e.g. {@code
     * IBV_WC_RETRY_EXC_ERR}, or the failed post), or {@code null} while it works.
     */
    FabricException failure();

    @Override
    void close();
}
