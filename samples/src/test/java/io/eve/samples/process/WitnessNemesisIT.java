package io.eve.samples.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.samples.cli.ReplicaLaunch;
import java.io.IOException;
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
 * The faults {@link NemesisIT} leaves out, against a primary-backup pair fenced by a witness (issue 21):
 * SIGSTOP of the backup and then of the primary for three failure timeouts, and a partition between the
 * two replicas for three failure timeouts while both still reach the witness. Without the witness each of
 * these lost acknowledged writes (a resumed backup took over with stale state; a partition gave two
 * primaries). Three JVMs (two key-value replicas and the witness), every link through a {@link LinkProxy},
 * six register clients; the history is checked for linearizability, so a lost acknowledged write shows as
 * a read of an older value, and both replicas must end with the same state.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class WitnessNemesisIT {
    private static final int KEYS = 4;
    private static final int OBJECT_SIZE = 1024; // the replicas' default --object-size
    private static final int FAILURE_TIMEOUT_MS = 1_000;
    private static final long LONG_FAULT_MS = 3L * FAILURE_TIMEOUT_MS;
    private static final Duration LIMIT = Duration.ofSeconds(30);
    private static final int WITNESS = 2;

    private final Nemesis nemesis = new Nemesis(LIMIT);

    @Test
    void shouldLoseNoAcknowledgedWriteWhenPausesAndPartitionsOutlastTheFailureTimeout() throws Exception {
        Path dir = Nemesis.workDir("witness-nemesis");
        int[] ports = ReplicaLaunch.freePorts(4);
        InetSocketAddress[] nodes = new InetSocketAddress[3];
        for (int node = 0; node < 3; node++) {
            nodes[node] = new InetSocketAddress("127.0.0.1", ports[node]);
        }
        // to[n][m]: the proxy node n dials to reach node m; clients reach the replicas through their own.
        LinkProxy[][] to = new LinkProxy[3][3];
        List<LinkProxy> proxies = new ArrayList<>();
        try {
            for (int from = 0; from < 3; from++) {
                for (int target = 0; target < 3; target++) {
                    if (from != target) {
                        to[from][target] = LinkProxy.start(from + "->" + target, nodes[target]);
                        proxies.add(to[from][target]);
                    }
                }
            }
            LinkProxy client0 = LinkProxy.start("clients->0", nodes[0]);
            LinkProxy client1 = LinkProxy.start("clients->1", nodes[1]);
            proxies.add(client0);
            proxies.add(client1);
            Path[] configs = new Path[3];
            for (int node = 0; node < 3; node++) {
                int[] reach = new int[3];
                for (int target = 0; target < 3; target++) {
                    reach[target] = target == node ? ports[target] : to[node][target].port();
                }
                configs[node] = writeConfig(dir.resolve("node-" + node + ".properties"), reach, ports[3]);
            }
            Path clients = writeConfig(
                    dir.resolve("clients.properties"),
                    new int[] {client0.port(), client1.port(), ports[WITNESS]},
                    ports[3]);
            try (ReplicaProcesses cluster =
                    ReplicaProcesses.start(dir, clients, configs, new int[] {ports[0], ports[1], ports[2]}, ports[3])) {
                RegisterWorkload workload = RegisterWorkload.start(clients, 8_000, 6, KEYS, OBJECT_SIZE);
                try {
                    nemesis.awaitProgress(workload, 200);
                    nemesis.pause(cluster, workload, backup(cluster), LONG_FAULT_MS);
                    nemesis.pause(cluster, workload, primary(cluster), LONG_FAULT_MS);
                    nemesis.cut(workload, "the links between the replicas", LONG_FAULT_MS, to[0][1], to[1][0]);
                    int primary = primary(cluster);
                    nemesis.cut(
                            workload,
                            "the primary's links to the backup and the witness",
                            LONG_FAULT_MS,
                            to[primary][1 - primary],
                            to[1 - primary][primary],
                            to[primary][WITNESS],
                            to[WITNESS][primary]);
                } finally {
                    workload.stop();
                }
                ReplicaLaunch.Status[] both = cluster.awaitSameState(1, LIMIT, 0, 1);
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
        } finally {
            for (LinkProxy proxy : proxies) {
                proxy.close();
            }
        }
    }

    private static int primary(ReplicaProcesses cluster) throws InterruptedException {
        return cluster.primary(LIMIT);
    }

    private static int backup(ReplicaProcesses cluster) throws InterruptedException {
        return 1 - primary(cluster);
    }

    private static Path writeConfig(Path file, int[] reach, int metricsPort) throws IOException {
        Files.writeString(
                file,
                String.join(
                        "\n",
                        "profile=primary-backup",
                        "nodes=0@127.0.0.1:" + reach[0] + ", 1@127.0.0.1:" + reach[1] + ", 2@127.0.0.1:" + reach[2],
                        "witness=" + WITNESS,
                        "executor.threads=4",
                        "heartbeat.interval-ms=100",
                        "failure.timeout-ms=" + FAILURE_TIMEOUT_MS,
                        "metrics.port=" + metricsPort,
                        ""),
                StandardCharsets.UTF_8);
        return file;
    }
}
