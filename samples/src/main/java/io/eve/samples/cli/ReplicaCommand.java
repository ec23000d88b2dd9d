package io.eve.samples.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.eve.config.ClusterConfig;
import io.eve.config.NodeAddress;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.transport.Transport;
import io.eve.transport.netty.NettyTransport;
import io.eve.verify.primarybackup.PrimaryBackupConfig;
import io.eve.verify.primarybackup.PrimaryBackupReplica;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Runs one replica until the process is stopped: the key-value store behind primary-backup verification
 * (or, for the crash and bft profiles, a {@link QuorumReplicaRun quorum process}) over TCP, metrics in Prometheus format on {@code /metrics} and a JSON summary on {@code /status} (port
 * {@code metrics.port + node}), and a status line every few seconds.
 */
@Command(name = "replica", mixinStandardHelpOptions = true, description = "Start a replica of the key-value store.")
final class ReplicaCommand implements Callable<Integer> {
    @Option(names = "--config", required = true, description = "The cluster configuration file.")
    Path config;

    @Option(names = "--node", required = true, description = "This replica's node id.")
    int node;

    @Option(names = "--join", description = "Restarting: catch up by state transfer before serving.")
    boolean join;

    @Option(
            names = "--status-every-ms",
            defaultValue = "2000",
            description = "Status line period (default ${DEFAULT-VALUE}).")
    long statusEveryMillis;

    @Mixin
    StoreOptions store;

    @Override
    public Integer call() throws Exception {
        ClusterConfig cluster = ClusterConfig.load(config);
        NodeAddress self = cluster.node(node);
        Map<Integer, InetSocketAddress> peers = new HashMap<>();
        cluster.nodes().forEach(n -> peers.put(n.id(), new InetSocketAddress(n.host(), n.port())));
        NettyTransport netty = NettyTransport.builder()
                .self(node)
                .listen(new InetSocketAddress(self.host(), self.port()))
                .peers(peers)
                .maxFrameBytes(cluster.maxFrameBytes())
                .build();
        Transport transport = ReplicaTransports.of(cluster, node, netty);
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        for (NettyTransport.ClosedBecause reason : NettyTransport.ClosedBecause.values()) {
            FunctionCounter.builder("eve.transport.closed", netty, t -> t.closedConnections(reason))
                    .description("connections the transport closed, by reason (bad handshake or frame, a handshake or"
                            + " frame that did not finish in time, a connection error)")
                    .tag("node", Integer.toString(node))
                    .tag("reason", reason.name().toLowerCase(java.util.Locale.ROOT))
                    .register(registry);
        }
        if (cluster.profile().quorum()) {
            return QuorumReplicaRun.run(
                    cluster, config, node, join, transport, store.build(), registry, statusEveryMillis);
        }
        CountDownLatch stopped = new CountDownLatch(1);
        int first = cluster.nodes().get(0).id();
        int second = cluster.nodes().get(1).id();
        PrimaryBackupReplica replica = PrimaryBackupReplica.builder()
                .config(new PrimaryBackupConfig(
                        new int[] {first, second},
                        node,
                        cluster.heartbeatInterval().toNanos(),
                        cluster.failureTimeout().toNanos(),
                        cluster.pipelineDepth(),
                        cluster.maxBatchSize(),
                        cluster.maxBatchDelay().toNanos()))
                .transport(transport)
                .application(store.build())
                .mixer(KeyConflictMixer.unbounded())
                .executorThreads(cluster.executorThreads())
                .inlineBatchLimit(cluster.inlineBatchLimit())
                .overlapBatches(cluster.overlapBatches())
                .joining(join)
                .meterRegistry(registry)
                .onFailure(failure -> stopped.countDown())
                .build();
        HttpServer http =
                cluster.metricsPort() > 0 ? serveMetrics(cluster.metricsPort() + node, registry, replica) : null;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (http != null) {
                http.stop(0);
            }
            replica.close();
        }));
        replica.start();
        System.out.printf(
                "node %d: replica of the key-value store on %s:%d (%s)%n",
                node, self.host(), self.port(), join ? "rejoining" : "starting");
        while (!stopped.await(statusEveryMillis, java.util.concurrent.TimeUnit.MILLISECONDS)) {
            System.out.printf(
                    "node %d: %s, view %d | %s%n",
                    node,
                    replica.isPrimary() ? "primary" : "backup",
                    replica.view(),
                    replica.metrics().status());
        }
        System.out.printf("node %d: stopped after an internal failure%n", node);
        return 1;
    }

    private static HttpServer serveMetrics(int port, PrometheusMeterRegistry registry, PrimaryBackupReplica replica)
            throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 16);
        server.createContext("/metrics", exchange -> respond(exchange, "text/plain; version=0.0.4", registry.scrape()));
        server.createContext("/status", exchange -> {
            PrimaryBackupReplica.StateSummary summary = replica.summary();
            String json = String.format(
                    "{\"primary\": %b, \"view\": %d, \"stableSeq\": %d, \"stableRoot\": \"%s\", \"rollbacks\": %d,"
                            + " \"transfers\": %d, \"transferBytes\": %d, \"replies\": %d}",
                    replica.isPrimary(),
                    replica.view(),
                    summary.stableSeq(),
                    summary.stableRoot().toHex(),
                    replica.metrics().rollbacks(),
                    replica.transfersInstalled(),
                    replica.metrics().transferBytes(),
                    replica.metrics().repliesReleased());
            respond(exchange, "application/json", json);
        });
        server.start();
        return server;
    }

    static void respond(HttpExchange exchange, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(200, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
