package io.eve.rdma.disni;

import com.ibm.disni.verbs.IbvMr;
import io.eve.rdma.FabricException;
import io.eve.rdma.RegionDescriptor;
import io.eve.rdma.RemoteRegion;
import io.eve.rdma.verbs.PendingWrites;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A write path over one DiSNI reliable connection. Bytes are staged in a registered mirror of the peer's
 * region at the same offset, so a write's source stays untouched until it completes (the ring never rewrites
 * bytes the peer has not consumed; small writes go inline, up to the queue pair's {@code max_inline_data}).
 *
 * <p>Every posted work request counts against the send queue until a signalled completion covers it:
 * {@link #postSlots()} tells the ring how many more it may post, so a post never fails for a full send
 * queue. Closing waits (bounded) for outstanding writes, closes the endpoint, and only then deregisters the
 * staging buffer the queue pair may still read.
 *
 * <p>Writes come from one thread; completions from DiSNI's completion thread.
 */
final class DisniRemoteRegion implements RemoteRegion {
    private static final Logger LOG = LoggerFactory.getLogger(DisniRemoteRegion.class);
    private static final long CLOSE_WAIT_NANOS = 1_000_000_000L;

    private final int self;
    private final int peer;
    private final RingEndpoint endpoint;
    private final RegionDescriptor descriptor;
    private final ByteBuffer staging;
    private final IbvMr stagingMr;
    private final SignalPolicy signals;
    private final int maxInline;
    private final PendingWrites pending;

    DisniRemoteRegion(
            int self,
            long path,
            int peer,
            RingEndpoint endpoint,
            RegionDescriptor descriptor,
            ByteBuffer staging,
            IbvMr stagingMr,
            int signalInterval,
            int maxInline) {
        this.self = self;
        this.pending = new PendingWrites(path);
        this.peer = peer;
        this.endpoint = endpoint;
        this.descriptor = descriptor;
        this.staging = staging;
        this.stagingMr = stagingMr;
        this.signals = new SignalPolicy(signalInterval);
        this.maxInline = maxInline;
    }

    @Override
    public RegionDescriptor descriptor() {
        return descriptor;
    }

    @Override
    public CompletableFuture<Void> write(long offset, ByteBuffer source) {
        int length = source.remaining();
        staging.put((int) offset, source, source.position(), length);
        return post(offset, length, signals.next(false));
    }

    /**
     * A zero-length {@code IBV_WR_RDMA_WRITE_WITH_IMM} carrying our node id: it consumes one of the receives the
     * peer's accepting endpoint keeps posted, and the peer's completion channel wakes DiSNI's completion thread
     * there, which rings the peer's doorbell listener. Ordered behind every write posted before it.
     */
    @Override
    public CompletableFuture<Void> doorbell() {
        PendingWrites.Posted posted = pending.add();
        if (posted.done().isDone()) {
            return posted.done();
        }
        try {
            endpoint.postSend(List.of(WorkRequests.doorbell(
                            posted.wrId(), descriptor.address(), descriptor.rkey(), self, signals.next(false))))
                    .execute()
                    .free();
        } catch (IOException e) {
            pending.failAll(
                    new FabricException("posting a doorbell to node " + peer + " failed: " + e.getMessage(), e));
        }
        return posted.done();
    }

    @Override
    public void flush() {
        if (signals.unsignaled() > 0 && endpoint.sendQueueDepth() - pending.outstanding() > 0) {
            post(0, 0, signals.next(true));
        }
    }

    /**
     * Work requests that may still be posted: the send queue's depth less those posted and not yet covered
     * by a completion, less one kept for the signalled write of a {@link #flush()}.
     */
    @Override
    public int maxInline() {
        return Math.min(maxInline, endpoint.maxInline());
    }

    @Override
    public int postSlots() {
        return Math.max(0, endpoint.sendQueueDepth() - pending.outstanding() - 1);
    }

    private CompletableFuture<Void> post(long offset, int length, boolean signaled) {
        PendingWrites.Posted posted = pending.add();
        if (posted.done().isDone()) {
            return posted.done();
        }
        try {
            endpoint.postSend(List.of(WorkRequests.write(
                            posted.wrId(),
                            stagingMr.getAddr() + offset,
                            length,
                            stagingMr.getLkey(),
                            descriptor.address() + offset,
                            descriptor.rkey(),
                            signaled,
                            Math.min(maxInline, endpoint.maxInline()))))
                    .execute()
                    .free();
        } catch (IOException e) {
            pending.failAll(new FabricException("posting a write to node " + peer + " failed: " + e.getMessage(), e));
        }
        return posted.done();
    }

    /**
     * A completion DiSNI dispatched to this queue pair's number. One whose work-request id another queue pair
     * handed out (a destroyed one whose number the device reused) is ignored.
     */
    void onCompletion(long wrId, int status, int vendorError) {
        boolean ours = pending.onCompletion(
                wrId, Completions.succeeded(status) ? null : Completions.failure(status, vendorError, wrId, peer));
        if (!ours) {
            LOG.debug("node {}: ignoring a stale completion of work request {} (status {})", peer, wrId, status);
        }
    }

    @Override
    public FabricException failure() {
        return pending.failure();
    }

    @Override
    public void close() {
        // The queue pair may still read the staging buffer for outstanding writes: let them complete (or
        // fail) first, close the endpoint, and deregister the buffer last.
        flush();
        long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
        while (pending.outstanding() > 0 && pending.failure() == null && System.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        try {
            endpoint.close();
        } catch (IOException e) {
            pending.failAll(new FabricException("closing the connection to node " + peer + " failed", e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        pending.failAll(new FabricException("the write path to node " + peer + " was closed"));
        try {
            endpoint.deregisterMemory(stagingMr);
        } catch (IOException e) {
            LOG.warn("deregistering the staging buffer of node {} failed: {}", peer, e.toString());
        }
    }
}
