package io.eve.rdma.disni;

import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import java.util.LinkedList;

/** Builds the verbs work requests of one-sided writes. Pure Java: DiSNI's verbs objects need no natives. */
final class WorkRequests {
    private WorkRequests() {}

    /**
     * An {@code IBV_WR_RDMA_WRITE} of {@code length} bytes from local {@code localAddress} (key {@code lkey})
     * to remote {@code remoteAddress} (key {@code rkey}). Inline when {@code length <= maxInline}: the NIC
     * copies the bytes at post time. A zero-length write carries no scatter-gather entry.
     */
    static IbvSendWR write(
            long wrId,
            long localAddress,
            int length,
            int lkey,
            long remoteAddress,
            int rkey,
            boolean signaled,
            int maxInline) {
        LinkedList<IbvSge> entries = new LinkedList<>();
        if (length > 0) {
            IbvSge entry = new IbvSge();
            entry.setAddr(localAddress);
            entry.setLength(length);
            entry.setLkey(lkey);
            entries.add(entry);
        }
        IbvSendWR request = new IbvSendWR();
        request.setWr_id(wrId);
        request.setOpcode(IbvSendWR.IBV_WR_RDMA_WRITE);
        request.setSend_flags(flags(signaled, length > 0 && length <= maxInline));
        request.setSg_list(entries);
        request.getRdma().setRemote_addr(remoteAddress);
        request.getRdma().setRkey(rkey);
        return request;
    }

    static int flags(boolean signaled, boolean inline) {
        return (signaled ? IbvSendWR.IBV_SEND_SIGNALED : 0) | (inline ? IbvSendWR.IBV_SEND_INLINE : 0);
    }
}
