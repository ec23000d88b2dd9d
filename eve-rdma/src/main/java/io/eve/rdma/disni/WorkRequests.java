package io.eve.rdma.disni;

import com.ibm.disni.verbs.IbvRecvWR;
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

    /**
     * A zero-length {@code IBV_WR_RDMA_WRITE_WITH_IMM} to {@code remoteAddress} carrying {@code immediate}: no
     * memory is written, but the peer's queue pair consumes a posted receive and reports a completion with the
     * immediate data, which is what wakes a peer blocked on its completion channel.
     */
    static IbvSendWR doorbell(long wrId, long remoteAddress, int rkey, int immediate, boolean signaled) {
        IbvSendWR request = new IbvSendWR();
        request.setWr_id(wrId);
        request.setOpcode(IbvSendWR.IBV_WR_RDMA_WRITE_WITH_IMM);
        request.setImm_data(immediate);
        request.setSend_flags(flags(signaled, false));
        request.setSg_list(new LinkedList<>());
        request.getRdma().setRemote_addr(remoteAddress);
        request.getRdma().setRkey(rkey);
        return request;
    }

    /** A receive without buffers: enough for a write with immediate data, whose bytes land elsewhere. */
    static IbvRecvWR doorbellReceive(long wrId) {
        IbvRecvWR request = new IbvRecvWR();
        request.setWr_id(wrId);
        request.setSg_list(new LinkedList<>());
        request.setNum_sge(0);
        return request;
    }
}
