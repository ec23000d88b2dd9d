package io.eve.rdma.disni;

import com.ibm.disni.verbs.IbvMr;
import io.eve.rdma.FabricException;
import io.eve.rdma.RegionDescriptor;
import io.eve.rdma.RemoteRegion;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A write path over one DiSNI reliable connection. Bytes are staged in a registered mirror of the peer's
 * region at the same offset, so a write's source stays untouched until it completes (the ring never rewrites
 * bytes the peer has not consumed; small writes go inline anyway).
 *
 * <p>Writes come from one thread; completions from DiSNI's completion thread.
 */
final class DisniRemoteRegion implements RemoteRegion {
    private final int peer;
    private final RingEndpoint endpoint;
    private final RegionDescriptor descriptor;
    private final ByteBuffer staging;
    private final IbvMr stagingMr;
    private final SignalPolicy signals;
    private final int maxInline;
    private final PendingWrites pending = new PendingWrites();
    private long nextWrId;

    DisniRemoteRegion(
            int peer,
            RingEndpoint endpoint,
            RegionDescriptor descriptor,
            ByteBuffer staging,
            IbvMr stagingMr,
            int signalInterval,
            int maxInline) {
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

    @Override
    public void flush() {
        if (signals.unsignaled() > 0) {
            post(0, 0, signals.next(true));
        }
    }

    private CompletableFuture<Void> post(long offset, int length, boolean signaled) {
        long wrId = ++nextWrId;
        CompletableFuture<Void> done = pending.add(wrId);
        if (done.isDone()) {
            return done;
        }
        try {
            endpoint.postSend(List.of(WorkRequests.write(
                            wrId,
                            stagingMr.getAddr() + offset,
                            length,
                            stagingMr.getLkey(),
                            descriptor.address() + offset,
                            descriptor.rkey(),
                            signaled,
                            maxInline)))
                    .execute()
                    .free();
        } catch (IOException e) {
            pending.failAll(new FabricException("posting a write to node " + peer + " failed: " + e.getMessage(), e));
        }
        return done;
    }

    void onCompletion(long wrId, int status, int vendorError) {
        if (Completions.succeeded(status)) {
            pending.completeThrough(wrId);
        } else {
            pending.failAll(Completions.failure(status, vendorError, wrId, peer));
        }
    }

    @Override
    public FabricException failure() {
        return pending.failure();
    }

    @Override
    public void close() {
        try {
            endpoint.deregisterMemory(stagingMr);
            endpoint.close();
        } catch (IOException e) {
            pending.failAll(new FabricException("closing the connection to node " + peer + " failed", e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
