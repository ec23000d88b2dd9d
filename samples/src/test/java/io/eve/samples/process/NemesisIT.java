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
 * Jepsen-style: two replica JVMs of the key-value sample, every link through a {@link LinkProxy}, six
 * register clients, and a nemesis that kills (SIGKILL, then restart with {@code --join}), pauses
 * (SIGSTOP, SIGCONT), cuts and delays links while the clients run. At the end the history of every
 * operation is checked for linearizability, both replicas must hold the same state, and the report lists
 * faults injected and operations attempted, acknowledged and checked.
 *
 * <p>The faults are those primary-backup claims to mask (docs/primary-backup.md): crashes, pauses and
 * link cuts shorter than the failure timeout, delays. A partition between the replicas longer than the
 * failure timeout is not among them (both would act as primary); the quorum profiles take that one.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class NemesisIT {
    private static final int KEYS = 4;
    private static final int OBJECT_SIZE = 1024; // the replicas' default --object-size
    private static final int FAILURE_TIMEOUT_MS = 2_000;
    private static final Duration LIMIT = Duration.ofSeconds(20);

    private final List<String> faults = new ArrayList<>();
    private final long startedAt = System.nanoTime();

    @Test
    void shouldStayLinearizableUnderKillsPausesCutsAndDelays() throws Exception {
        Path dir = workDir();
        int[] ports = ReplicaLaunch.freePorts();
        InetSocketAddress[] replicas = {
            new InetSocketAddress("127.0.0.1", ports[0]), new InetSocketAddress("127.0.0.1", ports[1])
        };
        // peer[n]: how the other replica reaches node n; client[n]: how clients reach node n.
        try (LinkProxy peer0 = LinkProxy.start("peer->0", replicas[0]);
                LinkProxy peer1 = LinkProxy.start("peer->1", replicas[1]);
                LinkProxy client0 = LinkProxy.start("clients->0", replicas[0]);
                LinkProxy client1 = LinkProxy.start("clients->1", replicas[1])) {
            Path node0 = writeConfig(dir.resolve("node-0.properties"), ports[0], peer1.port(), ports[2]);
            Path node1 = writeConfig(dir.resolve("node-1.properties"), peer0.port(), ports[1], ports[2]);
            Path clients = writeConfig(dir.resolve("clients.properties"), client0.port(), client1.port(), ports[2]);
            try (ReplicaProcesses cluster = ReplicaProcesses.start(
                    dir, clients, new Path[] {node0, node1}, new int[] {ports[0], ports[1]}, ports[2])) {
                RegisterWorkload workload = RegisterWorkload.start(clients, 8_000, 6, KEYS, OBJECT_SIZE);
                try {
                    awaitProgress(workload, 200);
                    killAndRejoin(cluster, workload, primary(cluster));
                    killAndRejoin(cluster, workload, backup(cluster));
                    pause(cluster, workload, primary(cluster), FAILURE_TIMEOUT_MS / 3);
                    pause(cluster, workload, backup(cluster), FAILURE_TIMEOUT_MS / 3);
                    cut(workload, "client link to the primary", primary(cluster) == 0 ? client0 : client1, 1_500);
                    cut(workload, "both replica links", FAILURE_TIMEOUT_MS / 3, peer0, peer1);
                    delay(workload, "both replica links", 20, 2_000, peer0, peer1);
                    delay(workload, "both client links", 30, 1_500, client0, client1);
                } finally {
                    workload.stop();
                }
                ReplicaLaunch.Status[] both = cluster.awaitSameStableSeq(1, LIMIT);
                RegisterWorkload.Report report = workload.check();
                log("done: " + report);
                writeReport(dir, report);

                assertThat(report.violations())
                        .as("linearizability: %s", report)
                        .isEmpty();
                assertThat(report.errors()).as("error replies").isZero();
                assertThat(report.checked()).as("operations checked").isGreaterThan(1_000);
                assertThat(both[1].stableRoot())
                        .as("state root of node 1 at batch %d", both[1].stableSeq())
                        .isEqualTo(both[0].stableRoot());
            }
        }
    }

    private void killAndRejoin(ReplicaProcesses cluster, RegisterWorkload workload, int node) throws Exception {
        long transfers = cluster.status(node).orElseThrow().transfers();
        log("SIGKILL node " + node + (cluster.status(node).orElseThrow().primary() ? " (primary)" : " (backup)"));
        cluster.kill(node);
        int other = 1 - node;
        cluster.awaitStatus(other, status -> status.primary(), LIMIT);
        awaitProgress(workload, 200);
        log("restart node " + node + " with --join");
        cluster.restartJoining(node);
        cluster.awaitStatus(node, status -> status.transfers() > transfers || status.stableSeq() > 0, LIMIT);
        awaitProgress(workload, 200);
    }

    private void pause(ReplicaProcesses cluster, RegisterWorkload workload, int node, long millis) throws Exception {
        log("SIGSTOP node " + node + " for " + millis + " ms");
        cluster.pause(node);
        try {
            Thread.sleep(millis); // the length of the fault, not a wait for a condition
        } finally {
            cluster.resume(node);
        }
        log("SIGCONT node " + node);
        awaitProgress(workload, 200);
    }

    private void cut(RegisterWorkload workload, String what, long millis, LinkProxy... links) throws Exception {
        log("cut " + what + " for " + millis + " ms");
        for (LinkProxy link : links) {
            link.cut();
        }
        Thread.sleep(millis); // the length of the fault
        for (LinkProxy link : links) {
            link.heal();
        }
        log("heal " + what);
        awaitProgress(workload, 200);
    }

    private void cut(RegisterWorkload workload, String what, LinkProxy link, long millis) throws Exception {
        cut(workload, what, millis, link);
    }

    private void delay(RegisterWorkload workload, String what, long delayMillis, long millis, LinkProxy... links)
            throws Exception {
        log("delay " + what + " by " + delayMillis + " ms for " + millis + " ms");
        for (LinkProxy link : links) {
            link.delay(delayMillis);
        }
        Thread.sleep(millis); // the length of the fault
        for (LinkProxy link : links) {
            link.heal();
        }
        log("heal " + what);
        awaitProgress(workload, 200);
    }

    private static int primary(ReplicaProcesses cluster) throws InterruptedException {
        return cluster.primary(LIMIT);
    }

    private static int backup(ReplicaProcesses cluster) throws InterruptedException {
        return 1 - primary(cluster);
    }

    /** Waits until {@code count} more operations are acknowledged: the cluster serves again. */
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

    private void writeReport(Path dir, RegisterWorkload.Report report) throws IOException {
        List<String> lines = new ArrayList<>(faults);
        lines.add(report.toString());
        Files.write(dir.resolve("nemesis-report.txt"), lines, StandardCharsets.UTF_8);
    }

    private static Path writeConfig(Path file, int port0, int port1, int metricsPort) throws IOException {
        Files.writeString(
                file,
                String.join(
                        "\n",
                        "profile=primary-backup",
                        "nodes=0@127.0.0.1:" + port0 + ", 1@127.0.0.1:" + port1,
                        "executor.threads=4",
                        "heartbeat.interval-ms=100",
                        "failure.timeout-ms=" + FAILURE_TIMEOUT_MS,
                        "metrics.port=" + metricsPort,
                        ""),
                StandardCharsets.UTF_8);
        return file;
    }

    private static Path workDir() throws IOException {
        Path dir = Path.of("target", "process-it", "nemesis");
        try (var old = Files.list(Files.createDirectories(dir))) {
            for (Path file : (Iterable<Path>) old::iterator) {
                Files.delete(file);
            }
        }
        return dir;
    }
}
