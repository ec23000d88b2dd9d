package io.eve.server;

import io.eve.config.ClusterConfig;
import io.eve.config.NodeAddress;
import io.eve.rdma.OneSidedFabric;
import io.eve.rdma.RdmaProbe;
import io.eve.rdma.RdmaTransport;
import io.eve.rdma.TransportMode;
import io.eve.rdma.TransportSelector;
import io.eve.server.security.Bundles;
import io.eve.transport.RoutedTransport;
import io.eve.transport.Transport;
import io.eve.transport.netty.NettyTransport;
import io.eve.transport.netty.tls.TlsIdentity;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transport a replica runs on, per the configuration's {@code transport} (docs/rdma.md): Netty for
 * everything, or the verification traffic between replicas over RDMA rings beside Netty for clients.
 * With {@code auto} on a machine without RDMA (every check that failed is logged) the replica runs on
 * Netty alone; with {@code rdma} it refuses to start, listing every failed check and its fix. With TLS the
 * RDMA control channel runs under the same identity as the Netty transport.
 */
final class ReplicaTransports {
    /** Memory each replica may need to lock for its rings: one 1 MiB ring per peer, with room to spare. */
    private static final long LOCKED_BYTES_PER_PEER = 2L << 20;

    private static final Logger LOG = LoggerFactory.getLogger(ReplicaTransports.class);

    private ReplicaTransports() {}

    /**
     * Node {@code node}'s TLS identity when {@code tls.enabled} (null otherwise), checked as it loads
     * ({@link TlsIdentity#loadNode}); with {@code tls.demo} the localhost demo bundle is generated first if
     * missing, and announced as demo-only. A bft node without TLS says at every start that its clients are not
     * authenticated.
     */
    static TlsIdentity tlsIdentity(ClusterConfig cluster, int node) {
        Bundles.prepareDemo(cluster);
        if (!cluster.tls().enabled()) {
            if (cluster.profile().quorum() && cluster.r() >= 1) {
                // Issue 20: in bft a client's identity is the id its connection names, unless TLS proves it.
                LOG.warn(
                        "node {}: bft without tls.enabled: clients are NOT authenticated (anyone who can reach this"
                                + " replica can send requests in any client's name) and replica links only by their MACs;"
                                + " set tls.enabled = on with a bundle from ./eve certs (docs/operations.md, \"Security\")",
                        node);
            }
            return null;
        }
        TlsIdentity identity = TlsIdentity.loadNode(cluster.tls().nodeFolder(node), node);
        LOG.info(
                "node {}: mutual TLS 1.3 as {} (certificate valid until {})",
                node,
                identity.identity(),
                identity.notAfter().toInstant());
        return identity;
    }

    /**
     * @param netty the node's TCP transport, which clients use in every mode
     * @param tls the node's TLS identity ({@link #tlsIdentity}), which the RDMA control channel runs under too,
     *     or {@code null} without TLS
     * @param meters where an RDMA transport's meters go ({@code eve.rdma.degrades}, {@code
     *     eve.rdma.upgrades}, {@code eve.rdma.ring.open}, {@code eve.rdma.control.refused}: served on {@code
     *     /metrics})
     */
    static Transport of(ClusterConfig cluster, int node, NettyTransport netty, TlsIdentity tls, MeterRegistry meters) {
        if (cluster.transport().equals("netty")) {
            return netty;
        }
        TransportMode mode = TransportMode.parse(cluster.transport());
        Set<Integer> replicas = cluster.nodes().stream().map(NodeAddress::id).collect(Collectors.toSet());
        NodeAddress self = cluster.rdmaNode(node);
        TransportSelector selector =
                new TransportSelector(RdmaProbe.ofThisMachine(LOCKED_BYTES_PER_PEER * replicas.size()));
        Transport peers = selector.select(
                mode,
                () -> netty,
                fabric -> rdma(cluster, node, fabric, tls, meters),
                node,
                new InetSocketAddress(self.host(), self.port()));
        return peers == netty ? netty : new RoutedTransport(peers, replicas, netty);
    }

    /** Node {@code node}'s RDMA transport over {@code fabric}, its control channel under {@code tls} if given. */
    static RdmaTransport rdma(
            ClusterConfig cluster, int node, OneSidedFabric fabric, TlsIdentity tls, MeterRegistry meters) {
        // rdma.nodes gives each replica's RDMA NIC address and port (DiSNI's connection manager); its
        // control channel (descriptors, acknowledgements, the slow path) listens on the same host, port + 1.
        Map<Integer, InetSocketAddress> control = new HashMap<>();
        for (NodeAddress rdma : cluster.rdmaNodes()) {
            control.put(rdma.id(), new InetSocketAddress(rdma.host(), rdma.port() + 1));
        }
        RdmaTransport.Builder builder = RdmaTransport.builder()
                .self(node)
                .listen(control.get(node))
                .peers(control::get)
                .fabric(fabric)
                .maxFrameBytes(cluster.maxFrameBytes())
                .meterRegistry(meters);
        if (tls != null) {
            builder.tls(tls);
        }
        return builder.build();
    }
}
