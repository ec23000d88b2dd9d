package io.eve.rdma.disni;

import com.ibm.disni.RdmaActiveEndpoint;
import com.ibm.disni.RdmaActiveEndpointGroup;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCmId;
import java.io.IOException;

/**
 * One reliable connection of the DiSNI fabric. Completions arrive on DiSNI's completion thread, which reuses
 * the {@link IbvWC} object, so only its values are passed on.
 */
final class RingEndpoint extends RdmaActiveEndpoint {
    private volatile DisniRemoteRegion region;

    RingEndpoint(RdmaActiveEndpointGroup<RingEndpoint> group, RdmaCmId id, boolean serverSide) throws IOException {
        super(group, id, serverSide);
    }

    void attach(DisniRemoteRegion region) {
        this.region = region;
    }

    @Override
    public void dispatchCqEvent(IbvWC completion) {
        DisniRemoteRegion current = region;
        if (current != null) {
            current.onCompletion(completion.getWr_id(), completion.getStatus(), completion.getVendor_err());
        }
    }
}
