package io.eve.rdma.disni;

import com.ibm.disni.verbs.RdmaConnParam;
import java.io.IOException;

/**
 * The {@link RdmaConnParam} every ring connection connects and accepts with. DiSNI 2.1's defaults leave
 * {@code retry_count} and {@code rnr_retry_count} at 0, so the first lost or late ACK moves the queue pair
 * to the error state ({@code IBV_WC_RETRY_EXC_ERR}); here both are 7, the verbs maximum (for RNR, 7 means
 * retry without end). Pure Java: DiSNI's parameter object needs no natives.
 */
final class ConnectionParameters {
    /** The verbs limit for both retry counts. */
    static final byte RETRIES = 7;

    private ConnectionParameters() {}

    /** Fresh parameters with both retry counts at {@link #RETRIES}. */
    static RdmaConnParam forRings() throws IOException {
        RdmaConnParam param = new RdmaConnParam();
        param.setRetry_count(RETRIES);
        param.setRnr_retry_count(RETRIES);
        return param;
    }
}
