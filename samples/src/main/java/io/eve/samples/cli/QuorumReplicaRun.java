package io.eve.samples.cli;

import com.sun.net.httpserver.HttpServer;
import io.eve.Application;
import io.eve.config.ClusterConfig;
import io.eve.config.ConfigException;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.transport.Transport;
import io.eve.transport.wire.FrameCodec;
import io.eve.verify.auth.AuthenticatingTransport;
import io.eve.verify.auth.Authenticator;
import io.eve.verify.auth.Envelopes;
import io.eve.verify.auth.MacEvidence;
import io.eve.verify.auth.MacKeys;
import io.eve.verify.quorum.Evidence;
import io.eve.verify.quorum.ExtraProtectionConfig;
import io.eve.verify.quorum.QuorumConfig;
import io.eve.verify.quorum.QuorumProcess;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code eve replica} for the quorum profiles (crash, bft): one {@link QuorumProcess} hosting the roles
 * the configuration gives this node, {@code /metrics} and {@code /status} as for primary-backup (plus the
 * role, the verifier's committed batch and view changes, and for bft {@code eve.auth.rejected}: messages
 * the authenticated links dropped), and a status line every few seconds.
 */
final class QuorumReplicaRun {
    private QuorumReplicaRun() {}

    /**
     * The authenticators of a bft node (docs/quorum.md, "Authenticators"): the key file named by
     * {@code auth.keys-file}, relative to the configuration file's folder.
     */
    static Envelopes envelopes(ClusterConfig cluster, Path configFile, int node) throws IOException {
        if (cluster.authKeysFile() == null) {
            throw new ConfigException("the " + cluster.profile().key() + " profile (r = " + cluster.r()
                    + ") authenticates every message between replicas and needs auth.keys-file; generate one"
                    + " with: ./eve keys --config " + configFile + " --out <file>");
        }
        Path dir = configFile.toAbsolutePath().getParent();
        Path keysFile = dir.resolve(cluster.authKeysFile());
        int[] ids = cluster.nodes().stream().mapToInt(n -> n.id()).toArray();
        MacKeys keys = MacKeys.load(keysFile, ids);
        return new Envelopes(new Authenticator(keys, node), new FrameCodec(cluster.maxFrameBytes()));
    }

    /** The protocol settings of node {@code node} of a crash or bft cluster. */
    static QuorumConfig quorumConfig(ClusterConfig cluster, int node) {
        ClusterConfig.ExtraProtection protection = cluster.extraProtection();
        return new QuorumConfig(
                cluster.u(),
                cluster.r(),
                cluster.executionReplicas().stream().mapToInt(Integer::intValue).toArray(),
                cluster.verifiers().stream().mapToInt(Integer::intValue).toArray(),
                node,
                cluster.failureTimeout().toNanos(),
                cluster.heartbeatInterval().toNanos(),
                cluster.pipelineDepth(),
                cluster.maxBatchSize(),
                cluster.maxBatchDelay().toNanos(),
                new ExtraProtectionConfig(
                        protection.enabled(),
                        protection.afterBatches(),
                        protection.waitTime().toNanos()));
    }

    /** Runs until the process fails (returns 1) or is stopped. */
    static int run(
            ClusterConfig cluster,
            Path configFile,
            int node,
            boolean join,
            Transport transport,
            Application application,
            PrometheusMeterRegistry registry,
            long statusEveryMillis)
            throws IOException, InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Envelopes envelopes = cluster.r() >= 1 ? envelopes(cluster, configFile, node) : null;
        Transport links = transport;
        if (envelopes != null) {
            AuthenticatingTransport authenticating = new AuthenticatingTransport(transport, envelopes);
            FunctionCounter.builder("eve.auth.rejected", authenticating, AuthenticatingTransport::rejected)
                    .description("messages dropped because they failed authentication (bad tag, wrong origin,"
                            + " unsealed, undecodable, or not a client request from a sender without keys)")
                    .tag("node", Integer.toString(node))
                    .register(registry);
            links = authenticating;
        }
        QuorumProcess process = QuorumProcess.builder()
                .config(quorumConfig(cluster, node))
                .transport(links)
                .evidence(envelopes == null ? Evidence.PLAIN : new MacEvidence(envelopes))
                .application(application)
                .mixer(KeyConflictMixer.unbounded())
                .executorThreads(cluster.executorThreads())
                .inlineBatchLimit(cluster.inlineBatchLimit())
                .joining(join)
                .meterRegistry(registry)
                .onFailure(failure -> stopped.countDown())
                .build();
        HttpServer http = cluster.metricsPort() > 0 ? serve(cluster.metricsPort() + node, registry, process) : null;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (http != null) {
                http.stop(0);
            }
            process.close();
        }));
        process.start();
        var self = cluster.node(node);
        System.out.printf(
                "node %d: %s of the key-value store (%s profile) on %s:%d (%s)%n",
                node,
                process.role(),
                cluster.profile().key(),
                self.host(),
                self.port(),
                join ? "rejoining" : "starting");
        while (!stopped.await(statusEveryMillis, TimeUnit.MILLISECONDS)) {
            System.out.printf(
                    "node %d: %s, view %d, committed %d, verified %d | %s%n",
                    node,
                    process.role(),
                    process.view(),
                    process.committed(),
                    process.verified(),
                    process.metrics().status());
        }
        System.out.printf("node %d: stopped after an internal failure%n", node);
        return 1;
    }

    private static HttpServer serve(int port, PrometheusMeterRegistry registry, QuorumProcess process)
            throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 16);
        server.createContext(
                "/metrics",
                exchange -> ReplicaCommand.respond(exchange, "text/plain; version=0.0.4", registry.scrape()));
        server.createContext("/status", exchange -> {
            QuorumProcess.StateSummary summary = process.summary();
            String json = String.format(
                    "{\"primary\": %b, \"view\": %d, \"stableSeq\": %d, \"stableRoot\": \"%s\", \"rollbacks\": %d,"
                            + " \"transfers\": %d, \"transferBytes\": %d, \"replies\": %d, \"role\": \"%s\","
                            + " \"verifiedSeq\": %d, \"viewChanges\": %d, \"joining\": %b}",
                    process.isPrimary(),
                    process.view(),
                    summary == null ? -1 : summary.stableSeq(),
                    summary == null ? "" : summary.stableRoot().toHex(),
                    process.metrics().rollbacks(),
                    process.transfersInstalled(),
                    process.metrics().transferBytes(),
                    process.metrics().repliesReleased(),
                    process.role(),
                    process.verified(),
                    process.viewChangesStarted(),
                    process.joining());
            ReplicaCommand.respond(exchange, "application/json", json);
        });
        server.start();
        return server;
    }
}
