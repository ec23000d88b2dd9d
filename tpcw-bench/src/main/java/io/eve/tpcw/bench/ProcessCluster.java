package io.eve.tpcw.bench;

import io.eve.bench.harness.ChildJvms;
import io.eve.config.ClusterConfig;
import io.eve.samples.cli.ReplicaLaunch;
import io.eve.server.launch.Launcher;
import io.eve.tpcw.TpcwService;
import io.eve.tpcw.TpcwSettings;
import io.eve.verify.auth.MacKeys;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * A TPC-W cluster as replica JVMs on 127.0.0.1: each node runs the launcher ({@code io.eve.server.launch.Launcher
 * replica --app io.eve.tpcw.TpcwService}) with this JVM's {@code java.home} and class path, its output in
 * {@code node-N.log} beside the configuration, started through the harness's {@link ChildJvms}: closing
 * kills every process it started, and a shutdown hook does the same if this JVM exits first. Used from one thread.
 */
public final class ProcessCluster implements AutoCloseable {
    private static final Duration START_LIMIT = Duration.ofSeconds(120);

    private final Path config;
    private final ClusterConfig cluster;
    private final ChildJvms jvms;

    private ProcessCluster(Path config) throws IOException {
        this.config = config;
        this.cluster = ClusterConfig.load(config);
        this.jvms = new ChildJvms(config.toAbsolutePath().getParent());
    }

    /**
     * Writes {@code dir/cluster.properties} for {@code profile} (primary-backup: 2 nodes, crash: 3, bft: 4
     * with a fresh key file) on free ports of 127.0.0.1, with {@code executorThreads} per replica and the
     * TPC-W {@code settings}; returns its path.
     */
    public static Path writeConfig(Path dir, String profile, int executorThreads, TpcwSettings settings)
            throws IOException {
        int count = nodeCount(profile);
        Files.createDirectories(dir);
        int[] ports = ReplicaLaunch.freePorts(count);
        List<String> nodes = new ArrayList<>();
        for (int node = 0; node < count; node++) {
            nodes.add(node + "@127.0.0.1:" + ports[node]);
        }
        List<String> lines = new ArrayList<>(List.of(
                "# TPC-W on H2 as processes (docs/tpcw.md); written by ProcessCluster",
                "profile=" + profile,
                "nodes=" + String.join(", ", nodes),
                "executor.threads=" + executorThreads,
                "execution.inline-batch-limit=0",
                "heartbeat.interval-ms=" + (profile.equals("primary-backup") ? 100 : 50),
                "failure.timeout-ms=3000",
                "metrics.port=" + ports[count]));
        lines.addAll(settings.configLines());
        if (profile.equals("bft")) {
            // One key file per node, each with only that node's keys (docs/quorum.md, "Authenticators").
            Path keys = dir.resolve("keys-" + Long.toHexString(System.nanoTime()));
            MacKeys.generate(IntStream.range(0, count).toArray(), new SecureRandom())
                    .writeNodeFiles(keys);
            lines.add("auth.keys-file=" + keys.getFileName() + "/node-{node}/" + MacKeys.NODE_FILE);
        }
        Path config = dir.resolve("cluster.properties");
        Files.writeString(config, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        return config;
    }

    /**
     * Starts a replica process for every node of {@code config} with {@code jvmOptions} and waits until each
     * answers its {@code /status} (the database is populated by then).
     *
     * @throws IllegalStateException if one does not within two minutes; every process is killed then
     */
    public static ProcessCluster start(Path config, List<String> jvmOptions) throws IOException, InterruptedException {
        ProcessCluster started = new ProcessCluster(config);
        try {
            for (int node : started.probe().nodes()) {
                started.launch(node, jvmOptions);
            }
            if (!started.probe().awaitAnswering(START_LIMIT)) {
                throw new IllegalStateException("the replicas did not all answer /status within " + START_LIMIT
                        + "; logs in " + config.toAbsolutePath().getParent());
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            started.close();
            throw e;
        }
        return started;
    }

    /** The configuration the replicas run with. */
    public ClusterConfig cluster() {
        return cluster;
    }

    /** A reader of the replicas' {@code /status}. */
    public ReplicaProbe probe() {
        return new ReplicaProbe(cluster);
    }

    /** The log of node {@code node}. */
    public Path log(int node) {
        return config.toAbsolutePath().getParent().resolve("node-" + node + ".log");
    }

    private static int nodeCount(String profile) {
        switch (profile) {
            case "primary-backup":
                return 2;
            case "crash":
                return 3;
            case "bft":
                return 4;
            default:
                throw new IllegalArgumentException("profile must be primary-backup, crash or bft, got " + profile);
        }
    }

    private void launch(int node, List<String> jvmOptions) throws IOException {
        jvms.start(
                "node-" + node,
                jvmOptions,
                Launcher.class.getName(),
                List.of(
                        "replica",
                        "--app",
                        TpcwService.class.getName(),
                        "--config",
                        config.toString(),
                        "--node",
                        Integer.toString(node),
                        "--status-every-ms",
                        "5000"));
    }

    @Override
    public void close() {
        jvms.close();
    }
}
