package io.eve.rdma;

import io.eve.rdma.memory.InMemoryFabric;
import io.eve.transport.Transport;
import io.eve.transport.TransportBehaviourSuite;

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

    @Override
    protected void closeNetwork() {
        fabric.close();
    }
}
