package io.eve.rdma.disni;

import com.ibm.disni.RdmaActiveEndpoint;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import java.io.IOException;

/**
 * One reliable connection of the DiSNI fabric. Completions arrive on DiSNI's completion thread, which reuses
 * the {@link IbvWC} object, so only its values are passed on. Connects and accepts with its group's retry
 * counts, and knows how much inline data its queue pair takes.
 */
final class RingEndpoint extends RdmaActiveEndpoint {
    private final RingEndpointGroup group;
    private volatile DisniRemoteRegion region;
    private volatile int maxInline;

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

    @Override
    public void dispatchCqEvent(IbvWC completion) {
        DisniRemoteRegion current = region;
        if (current != null) {
            current.onCompletion(completion.getWr_id(), completion.getStatus(), completion.getVendor_err());
        }
    }
}
