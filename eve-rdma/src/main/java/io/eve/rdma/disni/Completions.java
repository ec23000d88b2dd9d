package io.eve.rdma.disni;

import com.ibm.disni.verbs.IbvWC;
import io.eve.rdma.FabricException;
import io.eve.rdma.RemoteAccessException;

/** Turns a work completion's status into what the transport acts on. Pure Java. */
final class Completions {
    private Completions() {}

    static boolean succeeded(int status) {
        return status == IbvWC.IbvWcStatus.IBV_WC_SUCCESS.ordinal();
    }

    /** The exception for a failed completion of work request {@code wrId} writing to node {@code peer}. */
    static FabricException failure(int status, int vendorError, long wrId, int peer) {
        IbvWC.IbvWcStatus[] statuses = IbvWC.IbvWcStatus.values();
        String name = status >= 0 && status < statuses.length ? statuses[status].name() : "unknown status " + status;
        String where = " (work request " + wrId + " to node " + peer + ", vendor error " + vendorError + ")";
        if (status == IbvWC.IbvWcStatus.IBV_WC_REM_ACCESS_ERR.ordinal()) {
            return new RemoteAccessException("node " + peer + " revoked our access to its region: " + name + where);
        }
        if (status == IbvWC.IbvWcStatus.IBV_WC_WR_FLUSH_ERR.ordinal()) {
            return new FabricException("write flushed after an earlier error on the queue pair: " + name + where);
        }
        if (status == IbvWC.IbvWcStatus.IBV_WC_RETRY_EXC_ERR.ordinal()
                || status == IbvWC.IbvWcStatus.IBV_WC_RNR_RETRY_EXC_ERR.ordinal()) {
            return new FabricException("node " + peer + " stopped answering: " + name + where);
        }
        return new FabricException("RDMA write failed: " + name + where);
    }
}
