package io.eve.samples.process;

import io.eve.client.ClientConfig;
import io.eve.client.EveClient;
import io.eve.config.ClusterConfig;
import io.eve.config.NodeAddress;
import io.eve.transport.netty.NettyTransport;
import io.eve.transport.netty.tls.TlsIdentity;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** Clients of the process tests: one {@link EveClient} over its own TCP connections per client id. */
final class ProcessClients {
    private ProcessClients() {}

    /**
     * A client named {@code id} for the cluster of {@code cluster}, resending (to the other replica, or to every
     * execution replica for the quorum profiles, which need {@code r + 1} matching replies) after half the
     * failure timeout and giving up after {@code requestTimeout}. With {@code tls.enabled} it presents the clients'
     * certificate of the configuration ({@code tls.client}), which must grant {@code id}.
     */
    static EveClient connect(ClusterConfig cluster, int id, Duration requestTimeout) {
        Map<Integer, InetSocketAddress> peers = new HashMap<>();
        for (NodeAddress node : cluster.nodes()) {
            peers.put(node.id(), new InetSocketAddress(node.host(), node.port()));
        }
        NettyTransport.Builder builder =
                NettyTransport.builder().self(id).peers(peers).maxFrameBytes(cluster.maxFrameBytes());
        if (cluster.tls().enabled()) {
            // The client's own certificate, which must grant id (docs/operations.md, "Security").
            builder.tls(TlsIdentity.loadClient(cluster.tls().clientFolder()));
        }
        NettyTransport transport = builder.build();
        return new EveClient(transport, ClientConfig.forCluster(cluster, requestTimeout));
    }
}
