package io.eve.bench.suite;

import io.eve.transport.LocalNetwork;
import io.eve.transport.Transport;
import io.eve.transport.netty.NettyTransport;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where an Eve mode's replicas and clients meet: the in-JVM {@link LocalNetwork}, or Netty on 127.0.0.1
 * with ephemeral ports (each replica's address noted once it listens). Also says which threads are the
 * clients', for the CPU accounting. Thread-safe.
 */
final class SuiteNetwork implements AutoCloseable {
    private final boolean netty;
    private final int firstClient;
    private final LocalNetwork network = new LocalNetwork();
    private final Map<Integer, InetSocketAddress> addresses = new ConcurrentHashMap<>();
    private final Map<Integer, NettyTransport> servers = new ConcurrentHashMap<>();

    /** @param firstClient the lowest client id (replica ids are below it) */
    SuiteNetwork(boolean netty, int firstClient) {
        this.netty = netty;
        this.firstClient = firstClient;
    }

    /** Replica {@code node}'s transport; call {@link #noteAddress} once the replica started. */
    Transport serverTransport(int node) {
        if (!netty) {
            return network.join(node);
        }
        NettyTransport transport = NettyTransport.builder()
                .self(node)
                .listen(new InetSocketAddress("127.0.0.1", 0))
                .peers(addresses::get)
                .build();
        servers.put(node, transport);
        return transport;
    }

    /** Publishes where replica {@code node} listens (Netty only). */
    void noteAddress(int node) {
        if (netty) {
            addresses.put(node, servers.get(node).boundAddress());
        }
    }

    Transport clientTransport(int id) {
        return netty ? NettyTransport.builder().self(id).peers(addresses::get).build() : network.join(id);
    }

    /** Whether {@code thread} works for the clients (not charged to the replicas). */
    boolean isClientThread(Thread thread, ClientSide clientSide) {
        String name = thread.getName();
        if (name.startsWith("eve-client-")) {
            return true;
        }
        if (name.startsWith("local-node-")) {
            // LocalNetwork starts a node's inbox thread on the first message to it, possibly from a client's
            // thread, so the node id, not the thread group, says whose it is.
            return Integer.parseInt(name.substring("local-node-".length())) >= firstClient;
        }
        return netty && clientSide.owns(thread);
    }

    @Override
    public void close() {
        network.close();
    }
}
