package io.eve.rdma;

import io.eve.rdma.memory.InMemoryFabric;
import io.eve.transport.Transport;
import io.eve.transport.TransportBehaviourSuite;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The transport behaviour suite over {@link RdmaTransport}: rings on the in-memory fabric, the control
 * channel on real Netty over 127.0.0.1 ephemeral ports.
 */
class RdmaTransportBehaviourTest extends TransportBehaviourSuite {
    private final InMemoryFabric fabric = new InMemoryFabric();
    private final RdmaNodes nodes = new RdmaNodes(id -> fabric.node(id));

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

    @Override
    protected void closeNetwork() {
        fabric.close();
    }
}
