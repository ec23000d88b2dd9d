package io.eve.transport;

/** The transport behaviour suite over the in-JVM network. */
class LocalTransportBehaviourTest extends TransportBehaviourSuite {
    private final LocalNetwork network = new LocalNetwork();

    @Override
    protected Transport node(int id) {
        return network.join(id);
    }

    @Override
    protected void closeNetwork() {
        network.close();
    }
}
