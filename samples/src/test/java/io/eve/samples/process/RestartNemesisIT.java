package io.eve.samples.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.samples.cli.ReplicaLaunch;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Kill-all-then-restart for a durable primary-backup pair (issue 21): replica JVMs of the key-value sample
 * with {@code storage.dir} and {@code storage.sync=batch}, six register clients, and a nemesis that kills every
 * process (both replicas, and the witness when there is one) with SIGKILL at once and starts them all again
 * from their directories, three times, then kills the primary alone and the backup alone while the other
 * serves. After a whole-pair restart both replicas recover and join; the two joiners settle by the protocol
 * (docs/primary-backup.md, "Whole-cluster restart"). At the end every key is read once more, the history
 * (final reads included) is checked for linearizability, so an acknowledged write lost in a restart shows as a
 * read of an older value, and both replicas must end with the same state.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class RestartNemesisIT {
    private static final int KEYS = 4;
    private static final int OBJECT_SIZE = 1024; // the replicas' default --object-size
    private static final int FAILURE_TIMEOUT_MS = 1_000;
    private static final int WHOLE_RESTARTS = 3;
    private static final Duration LIMIT = Duration.ofSeconds(60);

    private final Nemesis nemesis = new Nemesis(LIMIT);

    /** The faults of one run, injected while the register clients run. */
    @FunctionalInterface
    private interface Faults {
        void inject(ReplicaProcesses cluster, RegisterWorkload workload, int[] everyone) throws Exception;
    }

    @Test
    void shouldKeepEveryAcknowledgedWriteThroughWholePairRestartsWithAWitness() throws Exception {
        run("restart-nemesis-witness", true, this::wholeRestartsThenEachAlone);
    }

    @Test
    void shouldKeepEveryAcknowledgedWriteThroughWholePairRestartsWithoutAWitness() throws Exception {
        run("restart-nemesis", false, this::wholeRestartsThenEachAlone);
    }

    /**
     * docs/primary-backup.md, "A holder that restarts": the backup stopped, the primary goes on alone with the
     * witness's grant, and is SIGKILLed while it holds it; the backup resumes and the witness refuses it. The
     * primary, restarted from its disk with the longer history, takes over and serves the backup.
     */
    @Test
    void shouldServeAgainWhenThePrimaryCrashesWhileCommittingAlone() throws Exception {
        run("restart-nemesis-holder", true, this::primaryCrashesWhileAlone);
    }

    private void run(String name, boolean witness, Faults faults) throws Exception {
        deleteTree(Path.of("target", "process-it", name, "storage")); // workDir empties files, not folders
        Path dir = Nemesis.workDir(name);
        int processes = witness ? 3 : 2;
        int[] ports = ReplicaLaunch.freePorts(processes + 1);
        Path config = writeConfig(dir.resolve("cluster.properties"), ports, processes, witness);
        Path[] configs = new Path[processes];
        java.util.Arrays.fill(configs, config);
        int[] everyone = IntStream.range(0, processes).toArray();
        try (ReplicaProcesses cluster = ReplicaProcesses.start(
                dir, config, configs, java.util.Arrays.copyOf(ports, processes), ports[processes])) {
            RegisterWorkload workload = RegisterWorkload.start(config, 8_000, 6, KEYS, OBJECT_SIZE);
            long[] finalTags;
            try {
                nemesis.awaitProgress(workload, 300);
                faults.inject(cluster, workload, everyone);
            } finally {
                workload.stop();
            }
            ReplicaLaunch.Status[] both = cluster.awaitSameState(1, LIMIT, 0, 1);
            finalTags = workload.readFinalState(config, 9_000);
            RegisterWorkload.Report report = workload.check();
            nemesis.log("final tags " + java.util.Arrays.toString(finalTags) + "; done: " + report);
            Files.write(dir.resolve("nemesis-report.txt"), nemesis.events(), StandardCharsets.UTF_8);

            assertThat(report.violations()).as("linearizability: %s", report).isEmpty();
            assertThat(report.errors()).as("error replies").isZero();
            assertThat(report.checked()).as("operations checked").isGreaterThan(1_000);
            assertThat(finalTags).as("every key was written and holds a write").doesNotContain(0L);
            assertThat(both[1].stableRoot())
                    .as("state root of node 1 at batch %d", both[1].stableSeq())
                    .isEqualTo(both[0].stableRoot());
        }
    }

    private void wholeRestartsThenEachAlone(ReplicaProcesses cluster, RegisterWorkload workload, int[] everyone)
            throws Exception {
        for (int round = 1; round <= WHOLE_RESTARTS; round++) {
            nemesis.log("SIGKILL every process at once (" + everyone.length + ")");
            cluster.killAtOnce(everyone);
            nemesis.log("restart every process from its storage.dir");
            for (int node : everyone) {
                cluster.restart(node);
            }
            int primary = cluster.primary(LIMIT);
            nemesis.log("node " + primary + " leads after restart " + round);
            nemesis.awaitProgress(workload, 300);
        }
        killOneAndRestart(cluster, workload, cluster.primary(LIMIT));
        killOneAndRestart(cluster, workload, 1 - cluster.primary(LIMIT));
    }

    private void primaryCrashesWhileAlone(ReplicaProcesses cluster, RegisterWorkload workload, int[] everyone)
            throws Exception {
        int primary = cluster.primary(LIMIT);
        int backup = 1 - primary;
        nemesis.log("SIGSTOP node " + backup + " (backup)");
        cluster.pause(backup);
        // Acknowledged writes while the backup is stopped: the primary commits alone, with the witness's grant.
        nemesis.awaitProgress(workload, 200);
        long alone = cluster.status(primary).orElseThrow().stableSeq();
        nemesis.log("node " + primary + " committed alone up to batch " + alone + "; SIGKILL it");
        cluster.kill(primary);
        cluster.resume(backup);
        nemesis.log("SIGCONT node " + backup + "; restart node " + primary + " from its storage.dir");
        cluster.restart(primary);
        io.eve.ReplicaStatus leads =
                cluster.awaitFullStatus(primary, status -> status.role() == io.eve.Replica.Role.PRIMARY, LIMIT);
        nemesis.log("node " + primary + " leads again in view " + leads.view());
        // As long as the other runs run in all: the history checked is of more than a thousand operations.
        nemesis.awaitProgress(workload, 800);
    }

    /** SIGKILL of one replica while the other serves, then its restart from its disk and its catch-up. */
    private void killOneAndRestart(ReplicaProcesses cluster, RegisterWorkload workload, int node) throws Exception {
        ReplicaLaunch.Status before = cluster.status(node).orElseThrow();
        nemesis.log("SIGKILL node " + node + (before.primary() ? " (primary)" : " (backup)") + " alone");
        cluster.kill(node);
        cluster.awaitStatus(1 - node, ReplicaLaunch.Status::primary, LIMIT);
        nemesis.awaitProgress(workload, 300);
        nemesis.log("restart node " + node + " from its storage.dir");
        cluster.restart(node);
        io.eve.ReplicaStatus caughtUp =
                cluster.awaitFullStatus(node, status -> status.role() == io.eve.Replica.Role.BACKUP, LIMIT);
        nemesis.log("node " + node + " caught up with " + caughtUp.transfers() + " transfer(s) of "
                + caughtUp.transferBytes() + " bytes");
        nemesis.awaitProgress(workload, 300);
    }

    private static Path writeConfig(Path file, int[] ports, int processes, boolean witness) throws IOException {
        List<String> nodes = new ArrayList<>();
        for (int node = 0; node < processes; node++) {
            nodes.add(node + "@127.0.0.1:" + ports[node]);
        }
        Files.writeString(
                file,
                String.join(
                        "\n",
                        "profile=primary-backup",
                        "nodes=" + String.join(", ", nodes),
                        witness ? "witness=2" : "",
                        "executor.threads=4",
                        "heartbeat.interval-ms=100",
                        "failure.timeout-ms=" + FAILURE_TIMEOUT_MS,
                        "storage.dir=storage",
                        "storage.sync=batch",
                        "storage.checkpoint-every=200",
                        "metrics.port=" + ports[processes],
                        ""),
                StandardCharsets.UTF_8);
        return file;
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
