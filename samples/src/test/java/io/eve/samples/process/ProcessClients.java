package io.eve.samples.process;

import io.eve.client.ClientConfig;
import io.eve.client.EveClient;
import io.eve.config.ClusterConfig;
import io.eve.config.NodeAddress;
import io.eve.transport.netty.NettyTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** Clients of the process tests: one {@link EveClient} over its own TCP connections per client id. */
final class ProcessClients {
    private ProcessClients() {}

    /**
     * A client named {@code id} for the cluster of {@code cluster}, resending to the other replica after
     * half the failure timeout and giving up after {@code requestTimeout}.
     */
    static EveClient connect(ClusterConfig cluster, int id, Duration requestTimeout) {
        Map<Integer, InetSocketAddress> peers = new HashMap<>();
        int[] replicas = new int[cluster.nodes().size()];
        for (int i = 0; i < replicas.length; i++) {
            NodeAddress node = cluster.nodes().get(i);
            peers.put(node.id(), new InetSocketAddress(node.host(), node.port()));
            replicas[i] = node.id();
        }
        NettyTransport transport = NettyTransport.builder()
                .self(id)
                .peers(peers)
                .maxFrameBytes(cluster.maxFrameBytes())
                .build();
        Duration attempt = cluster.failureTimeout().dividedBy(2).plusMillis(100);
        return new EveClient(transport, ClientConfig.of(replicas).withTimeouts(attempt, requestTimeout));
    }
}
