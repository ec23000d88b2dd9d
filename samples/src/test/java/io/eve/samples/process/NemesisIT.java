package io.eve.samples.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.samples.cli.ReplicaLaunch;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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

    private final Nemesis nemesis = new Nemesis(LIMIT);

    @Test
    void shouldStayLinearizableUnderKillsPausesCutsAndDelays() throws Exception {
        Path dir = Nemesis.workDir("nemesis");
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
                    nemesis.awaitProgress(workload, 200);
                    killAndRejoin(cluster, workload, primary(cluster));
                    killAndRejoin(cluster, workload, backup(cluster));
                    nemesis.pause(cluster, workload, primary(cluster), FAILURE_TIMEOUT_MS / 3);
                    nemesis.pause(cluster, workload, backup(cluster), FAILURE_TIMEOUT_MS / 3);
                    nemesis.cut(
                            workload, "client link to the primary", 1_500, primary(cluster) == 0 ? client0 : client1);
                    nemesis.cut(workload, "both replica links", FAILURE_TIMEOUT_MS / 3, peer0, peer1);
                    nemesis.delay(workload, "both replica links", 20, 2_000, peer0, peer1);
                    nemesis.delay(workload, "both client links", 30, 1_500, client0, client1);
                } finally {
                    workload.stop();
                }
                ReplicaLaunch.Status[] both = cluster.awaitSameStableSeq(1, LIMIT);
                RegisterWorkload.Report report = workload.check();
                nemesis.log("done: " + report);
                Files.write(dir.resolve("nemesis-report.txt"), nemesis.events(), StandardCharsets.UTF_8);

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
        nemesis.log(
                "SIGKILL node " + node + (cluster.status(node).orElseThrow().primary() ? " (primary)" : " (backup)"));
        cluster.kill(node);
        int other = 1 - node;
        cluster.awaitStatus(other, status -> status.primary(), LIMIT);
        nemesis.awaitProgress(workload, 200);
        nemesis.log("restart node " + node + " with --join");
        cluster.restartJoining(node);
        cluster.awaitStatus(node, status -> status.transfers() > transfers || status.stableSeq() > 0, LIMIT);
        nemesis.awaitProgress(workload, 200);
    }

    private static int primary(ReplicaProcesses cluster) throws InterruptedException {
        return cluster.primary(LIMIT);
    }

    private static int backup(ReplicaProcesses cluster) throws InterruptedException {
        return 1 - primary(cluster);
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
}
