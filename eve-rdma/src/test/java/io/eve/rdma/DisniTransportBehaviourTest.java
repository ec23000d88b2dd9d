package io.eve.rdma;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.eve.transport.Transport;
import io.eve.transport.TransportBehaviourSuite;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The transport behaviour suite over real DiSNI, on machines where the probe passes (skipped elsewhere). The
 * RDMA NIC's IPv4 address comes from {@code -Deve.rdma.address} (default 127.0.0.1, which only a software
 * device on loopback serves); each node's connection manager listens on port 7470 + id.
 */
@Tag("rdma-hardware")
class DisniTransportBehaviourTest extends TransportBehaviourSuite {
    private final RdmaNodes nodes = new RdmaNodes(id -> TransportSelector.newDisniFabric(
            id, new InetSocketAddress(System.getProperty("eve.rdma.address", "127.0.0.1"), 7470 + id)));

    @BeforeEach
    void requireRdma() {
        RdmaProbe.Result result = RdmaProbe.ofThisMachine(64L << 20).probe();
        assumeTrue(result.available(), () -> "RDMA is unavailable here:\n" + result.describeFailures());
    }

    @Override
    protected Transport node(int id) {
        return nodes.node(id);
    }

    @Test
    void shouldCarryMessagesThroughTheRingsNotTheControlChannel() throws Exception {
        List<Transport> opened = new ArrayList<>();
        try {
            RingDelivery.assertMessagesTravelThroughTheRing(nodes, id -> {
                Transport transport = nodes.node(id);
                opened.add(transport);
                return transport;
            });
        } finally {
            opened.forEach(Transport::close);
        }
    }
}
