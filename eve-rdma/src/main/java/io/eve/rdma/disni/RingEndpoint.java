package io.eve.rdma.disni;

import com.ibm.disni.RdmaActiveEndpoint;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import io.eve.rdma.verbs.WorkRequestIds;
import java.io.IOException;
import java.util.List;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One reliable connection of the DiSNI fabric. Completions arrive on DiSNI's completion thread, which reuses
 * the {@link IbvWC} object, so only its values are passed on. Connects and accepts with its group's retry
 * counts, and knows how much inline data its queue pair takes.
 *
 * <p>A connecting endpoint carries one write path ({@link DisniRemoteRegion}) and gets its send completions.
 * An accepted endpoint posts nothing but receives for doorbells ({@link #receiveDoorbells}): each
 * write-with-immediate from the peer consumes one, rings the listener with the immediate data (the peer's
 * id) and posts it again. Receives carry work-request ids of their own path number, so a stale completion
 * of a destroyed queue pair whose number this one reuses neither rings nor reposts.
 */
final class RingEndpoint extends RdmaActiveEndpoint {
    private static final Logger LOG = LoggerFactory.getLogger(RingEndpoint.class);
    private final RingEndpointGroup group;
    private volatile DisniRemoteRegion region;
    private volatile int maxInline;
    private volatile IntConsumer doorbells;
    private volatile WorkRequestIds receiveIds;

    RingEndpoint(RingEndpointGroup group, RdmaCmId id, boolean serverSide) throws IOException {
        super(group, id, serverSide);
        this.group = group;
    }

    void attach(DisniRemoteRegion region) {
        this.region = region;
    }

    /** Set when the queue pair is created: the {@code max_inline_data} it was created with. */
    void maxInline(int bytes) {
        this.maxInline = bytes;
    }

    /** The largest write this endpoint may post with {@code IBV_SEND_INLINE} (0: none). */
    int maxInline() {
        return maxInline;
    }

    /** Work requests this endpoint's send queue holds. */
    int sendQueueDepth() {
        return group.sendQueueDepth();
    }

    @Override
    public RdmaConnParam getConnParam() {
        return group.ringConnParam();
    }

    /**
     * Posts {@code count} doorbell receives (at most the queue pair's receive queue) under path number {@code
     * path}; every completed one rings {@code listener} and is posted again. Called once, after accept.
     */
    void receiveDoorbells(IntConsumer listener, long path, int count) throws IOException {
        WorkRequestIds ids = new WorkRequestIds(path);
        this.doorbells = listener;
        this.receiveIds = ids;
        for (int i = 0; i < count; i++) {
            postReceive(ids);
        }
    }

    private void postReceive(WorkRequestIds ids) throws IOException {
        long wrId;
        synchronized (ids) {
            wrId = ids.next();
        }
        postRecv(List.of(WorkRequests.doorbellReceive(wrId))).execute().free();
    }

    @Override
    public void dispatchCqEvent(IbvWC completion) {
        if (isServerSide()) {
            onReceive(completion.getWr_id(), completion.getStatus(), completion.getImm_data());
            return;
        }
        DisniRemoteRegion current = region;
        if (current != null) {
            current.onCompletion(completion.getWr_id(), completion.getStatus(), completion.getVendor_err());
        }
    }

    private void onReceive(long wrId, int status, int immediate) {
        WorkRequestIds ids = receiveIds;
        if (ids == null || !ids.owns(wrId)) {
            LOG.debug("ignoring a stale receive completion (work request {}, status {})", wrId, status);
            return;
        }
        if (!Completions.succeeded(status)) {
            // Flushed as the connection closes, or the queue pair broke: nothing more will arrive on it.
            return;
        }
        doorbells.accept(immediate);
        try {
            postReceive(ids);
        } catch (IOException e) {
            LOG.warn("reposting a doorbell receive failed; the peer's doorbells may stall: {}", e.toString());
        }
    }
}
