package io.eve.samples.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.samples.cli.ReplicaLaunch;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link NemesisIT} for the crash profile: three replica JVMs, every directed link between them through
 * its own {@link LinkProxy}, register clients, and a nemesis that partitions one replica from the others
 * for longer than the failure (view) timeout (first a backup, then the execution primary: the fault
 * primary-backup cannot take), kills and restarts one with {@code --join}, pauses one and delays links.
 * The history is checked for linearizability and every execution replica must end with the same state.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QuorumNemesisIT {
    private static final int NODES = 3;
    private static final int KEYS = 4;
    private static final int OBJECT_SIZE = 1024;
    private static final int FAILURE_TIMEOUT_MS = 2_000;
    private static final Duration LIMIT = Duration.ofSeconds(20);

    private final List<String> faults = new ArrayList<>();
    private final long startedAt = System.nanoTime();
    private final List<LinkProxy> proxies = new ArrayList<>();
    /** links[from][to]: how replica {@code from} reaches replica {@code to}. */
    private final LinkProxy[][] links = new LinkProxy[NODES][NODES];

    @Test
    void shouldStayLinearizableWhenAReplicaIsPartitionedLongerThanTheFailureTimeout() throws Exception {
        Path dir = workDir();
        int[] ports = ReplicaLaunch.freePorts(NODES);
        try {
            int[][] reach = new int[NODES + 1][NODES];
            for (int to = 0; to < NODES; to++) {
                InetSocketAddress target = new InetSocketAddress("127.0.0.1", ports[to]);
                for (int from = 0; from < NODES; from++) {
                    if (from == to) {
                        reach[from][to] = ports[to];
                    } else {
                        links[from][to] = proxy(from + "->" + to, target);
                        reach[from][to] = links[from][to].port();
                    }
                }
                reach[NODES][to] = proxy("clients->" + to, target).port();
            }
            Path[] nodeConfigs = new Path[NODES];
            for (int node = 0; node < NODES; node++) {
                nodeConfigs[node] = writeConfig(dir.resolve("node-" + node + ".properties"), reach[node], ports[NODES]);
            }
            Path clients = writeConfig(dir.resolve("clients.properties"), reach[NODES], ports[NODES]);
            try (ReplicaProcesses cluster = ReplicaProcesses.start(
                    dir, clients, nodeConfigs, java.util.Arrays.copyOf(ports, NODES), ports[NODES])) {
                RegisterWorkload workload = RegisterWorkload.start(clients, 9_000, 6, KEYS, OBJECT_SIZE);
                try {
                    awaitProgress(workload, 200);
                    int primary = cluster.primary(LIMIT);
                    partition(workload, (primary + 1) % NODES, FAILURE_TIMEOUT_MS * 5 / 2);
                    partition(workload, primary, FAILURE_TIMEOUT_MS * 5 / 2);
                    int victim = (cluster.primary(LIMIT) + 1) % NODES;
                    log("SIGKILL node " + victim);
                    cluster.kill(victim);
                    awaitProgress(workload, 200);
                    log("restart node " + victim + " with --join");
                    cluster.restartJoining(victim);
                    cluster.awaitStatus(victim, status -> status.transfers() > 0, LIMIT);
                    awaitProgress(workload, 200);
                    int paused = cluster.primary(LIMIT);
                    log("SIGSTOP node " + paused + " for " + FAILURE_TIMEOUT_MS / 3 + " ms");
                    cluster.pause(paused);
                    try {
                        Thread.sleep(FAILURE_TIMEOUT_MS / 3); // the length of the fault
                    } finally {
                        cluster.resume(paused);
                    }
                    awaitProgress(workload, 200);
                    log("delay every replica link by 20 ms for 1.5 s");
                    for (LinkProxy[] row : links) {
                        for (LinkProxy link : row) {
                            if (link != null) {
                                link.delay(20);
                            }
                        }
                    }
                    Thread.sleep(1_500); // the length of the fault
                    healAll();
                    awaitProgress(workload, 200);
                } finally {
                    workload.stop();
                }
                ReplicaLaunch.Status[] all = cluster.awaitSameState(1, LIMIT, 0, 1, 2);
                RegisterWorkload.Report report = workload.check();
                log("done at batch " + all[0].stableSeq() + ": " + report);
                List<String> lines = new ArrayList<>(faults);
                lines.add(report.toString());
                Files.write(dir.resolve("nemesis-report.txt"), lines, StandardCharsets.UTF_8);

                assertThat(report.violations())
                        .as("linearizability: %s", report)
                        .isEmpty();
                assertThat(report.errors()).as("error replies").isZero();
                assertThat(report.checked()).as("operations checked").isGreaterThan(1_000);
            }
        } finally {
            for (LinkProxy proxy : proxies) {
                proxy.close();
            }
        }
    }

    private LinkProxy proxy(String name, InetSocketAddress target) throws IOException {
        LinkProxy proxy = LinkProxy.start(name, target);
        proxies.add(proxy);
        return proxy;
    }

    /** Cuts every link between {@code node} and the other replicas (clients still reach it) for a while. */
    private void partition(RegisterWorkload workload, int node, long millis) throws Exception {
        log("partition node " + node + " from the other replicas for " + millis + " ms");
        for (int other = 0; other < NODES; other++) {
            if (other != node) {
                links[node][other].cut();
                links[other][node].cut();
            }
        }
        Thread.sleep(millis); // the length of the fault, longer than the failure timeout
        awaitProgress(workload, 100); // the majority serves meanwhile
        healAll();
        log("heal node " + node);
        awaitProgress(workload, 200);
    }

    private void healAll() {
        for (LinkProxy[] row : links) {
            for (LinkProxy link : row) {
                if (link != null) {
                    link.heal();
                }
            }
        }
    }

    private static void awaitProgress(RegisterWorkload workload, long count) throws InterruptedException {
        long target = workload.acknowledged() + count;
        long deadline = System.nanoTime() + LIMIT.toNanos();
        while (workload.acknowledged() < target) {
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError("no progress: " + workload.acknowledged() + " of " + target
                        + " operations acknowledged within " + LIMIT);
            }
            Thread.sleep(20);
        }
    }

    private void log(String event) {
        String line = String.format("%7.3f s  %s", (System.nanoTime() - startedAt) / 1e9, event);
        faults.add(line);
        PrintStream out = System.out;
        out.println("nemesis " + line);
    }

    private static Path writeConfig(Path file, int[] ports, int metricsPort) throws IOException {
        List<String> nodes = new ArrayList<>();
        for (int node = 0; node < ports.length; node++) {
            nodes.add(node + "@127.0.0.1:" + ports[node]);
        }
        Files.writeString(
                file,
                String.join(
                        "\n",
                        "profile=crash",
                        "nodes=" + String.join(", ", nodes),
                        "executor.threads=4",
                        "heartbeat.interval-ms=50",
                        "failure.timeout-ms=" + FAILURE_TIMEOUT_MS,
                        "metrics.port=" + metricsPort,
                        ""),
                StandardCharsets.UTF_8);
        return file;
    }

    private static Path workDir() throws IOException {
        Path dir = Path.of("target", "process-it", "quorum-nemesis");
        try (var old = Files.list(Files.createDirectories(dir))) {
            for (Path file : (Iterable<Path>) old::iterator) {
                Files.delete(file);
            }
        }
        return dir;
    }
}
