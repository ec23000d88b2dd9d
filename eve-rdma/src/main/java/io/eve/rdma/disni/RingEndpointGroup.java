package io.eve.rdma.disni;

import com.ibm.disni.RdmaActiveEndpointGroup;
import com.ibm.disni.RdmaCqProcessor;
import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.RdmaConnParam;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * DiSNI's active endpoint group with the queue pairs and connection parameters the rings need, which
 * DiSNI 2.1's own group does not set: queue pairs ask for {@code max_inline_data} of {@link
 * #requestedInline} bytes (the writes the fabric posts with {@code IBV_SEND_INLINE}); a device that
 * refuses gets queue pairs without inline data, and the endpoint then posts nothing inline. Connections
 * (both the side that connects and the side that accepts) retry a lost packet and a receiver-not-ready
 * 7 times ({@code retry_count}, {@code rnr_retry_count}; 7 means forever for RNR), so one late ACK no
 * longer moves a queue pair to the error state.
 *
 * <p>Every endpoint shares one completion queue per device (DiSNI's design), sized by the caller for
 * every endpoint's send queue.
 */
final class RingEndpointGroup extends RdmaActiveEndpointGroup<RingEndpoint> {
    private static final Logger LOG = LoggerFactory.getLogger(RingEndpointGroup.class);
    private final int requestedInline;
    private final int sendQueueDepth;
    private final int receiveQueueDepth;
    private final RdmaConnParam connParam;

    /**
     * @param sendQueueDepth work requests each queue pair's send queue holds
     * @param receiveQueueDepth receives each queue pair's receive queue holds (the doorbells in flight)
     * @param cqSize entries of the shared completion queue (at least {@code sendQueueDepth} per endpoint)
     * @param requestedInline bytes of inline data each queue pair asks for
     */
    RingEndpointGroup(int timeoutMillis, int sendQueueDepth, int receiveQueueDepth, int cqSize, int requestedInline)
            throws IOException {
        super(timeoutMillis, false, sendQueueDepth, 1, cqSize);
        this.requestedInline = requestedInline;
        this.receiveQueueDepth = receiveQueueDepth;
        this.sendQueueDepth = sendQueueDepth;
        this.connParam = ConnectionParameters.forRings();
    }

    RdmaConnParam ringConnParam() {
        return connParam;
    }

    int sendQueueDepth() {
        return sendQueueDepth;
    }

    @Override
    public IbvQP createQpProvider(RingEndpoint endpoint) throws IOException {
        // allocateResources created the endpoint's completion-queue processor just before its queue pair.
        @SuppressWarnings("unchecked")
        RdmaCqProcessor<RingEndpoint> processor = (RdmaCqProcessor<RingEndpoint>) endpoint.getCqProvider();
        IbvCQ cq = processor.getCQ();
        IbvQP qp;
        int inline = requestedInline;
        try {
            qp = endpoint.getIdPriv().createQP(endpoint.getPd(), attributes(cq, inline));
        } catch (IOException refused) {
            LOG.warn(
                    "the RDMA device refused queue pairs with {} bytes of inline data ({}); posting nothing inline",
                    requestedInline,
                    refused.toString());
            inline = 0;
            qp = endpoint.getIdPriv().createQP(endpoint.getPd(), attributes(cq, 0));
        }
        if (qp == null) {
            throw new IOException("the RDMA device created no queue pair (ibv_create_qp failed)");
        }
        endpoint.maxInline(inline);
        processor.registerQP(qp.getQp_num(), endpoint);
        return qp;
    }

    private IbvQPInitAttr attributes(IbvCQ cq, int inline) {
        IbvQPInitAttr attr = new IbvQPInitAttr();
        attr.cap().setMax_send_wr(sendQueueDepth);
        attr.cap().setMax_send_sge(1);
        // The rings only write; the receives are for doorbells (writes with immediate data) alone.
        attr.cap().setMax_recv_wr(receiveQueueDepth);
        attr.cap().setMax_recv_sge(1);
        attr.cap().setMax_inline_data(inline);
        attr.setQp_type(IbvQP.IBV_QPT_RC);
        attr.setSend_cq(cq);
        attr.setRecv_cq(cq);
        return attr;
    }
}
