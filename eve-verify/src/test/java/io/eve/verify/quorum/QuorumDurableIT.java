package io.eve.verify.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Replica.Role;
import io.eve.Reply;
import io.eve.client.EveClient;
import io.eve.storage.Recovered;
import io.eve.verify.primarybackup.CounterApp;
import io.eve.verify.runtime.ReplicaRuntime;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 21: quorum execution replicas with durable storage (docs/quorum.md, "Durable replicas"). A process
 * restarted from its disk under load recovers its committed batch, catches up by the delta since it, serves
 * again, and holds every acknowledged write; the same process restarted without its folder takes the whole
 * state, which the delta must be far below.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class QuorumDurableIT {
    private static final int FILLED = 3000;
    private static final long FIRST_FILLED = 1000;
    private static final Duration IN_SERVICE_BOUND = Duration.ofSeconds(20);

    @TempDir
    Path storage;

    @Test
    void shouldRestartAnExecutionReplicaOfTheCrashProfileFromItsDiskAndTakeOnlyTheDelta() throws Exception {
        restartFromDisk(QuorumConfig.crash(new int[] {0, 1, 2}, 0), 2);
    }

    @Test
    void shouldRestartAnExecutionReplicaOfTheBftProfileFromItsDiskAndTakeOnlyTheDelta() throws Exception {
        restartFromDisk(QuorumConfig.bft(new int[] {0, 1, 2, 3}, 0), 1);
    }

    @Test
    void shouldRestartAWholeCrashClusterFromDiskWithEveryAcknowledgedWrite() throws Exception {
        restartAll(QuorumConfig.crash(new int[] {0, 1, 2}, 0));
    }

    @Test
    void shouldRestartAWholeBftClusterFromDiskWithEveryAcknowledgedWrite() throws Exception {
        restartAll(QuorumConfig.bft(new int[] {0, 1, 2, 3}, 0));
    }

    @Test
    void shouldRestartAWholeCrashClusterStoppedUnderLoad() throws Exception {
        restartAllUnderLoad(QuorumConfig.crash(new int[] {0, 1, 2}, 0));
    }

    @Test
    void shouldRestartAWholeBftClusterStoppedUnderLoad() throws Exception {
        restartAllUnderLoad(QuorumConfig.bft(new int[] {0, 1, 2, 3}, 0));
    }

    /**
     * Every process stops while clients keep adding (their requests in flight retried across the restart),
     * then all start again from their folders: the cluster serves, and every counter equals its client's
     * acknowledged adds (none lost, none applied twice). The verifiers may remember a batch no replica had
     * committed; the replicas hold it in their executed tails (docs/quorum.md, "Durable replicas and
     * verifiers").
     */
    private void restartAllUnderLoad(QuorumConfig config) throws Exception {
        int[] processes = config.processes();
        int[] replicas = config.executionReplicas();
        try (QuorumCluster cluster = QuorumCluster.durable(config, storage)) {
            fill(cluster.client(90));
            CounterLoad load = new CounterLoad(cluster, 4);
            load.awaitProgress(200);
            long viewBefore = cluster.processes[0].view();
            long[] committed = new long[processes.length];
            for (int node : processes) {
                committed[node] = cluster.processes[node].status().verifiedSeq();
                cluster.crash(node);
            }
            long ackedAtStop = load.total();

            long restartedAt = System.nanoTime();
            for (int node : processes) {
                cluster.start(node, false);
            }
            load.awaitProgress(100);
            long millis = (System.nanoTime() - restartedAt) / 1_000_000;
            load.stop();
            ReplicaRuntime.StateSummary after = cluster.awaitEqualStates(replicas);
            long moved = 0;
            StringBuilder recovered = new StringBuilder();
            for (int replica : replicas) {
                load.assertState(cluster.apps[replica]);
                assertThat(cluster.apps[replica].counters.get(FIRST_FILLED + FILLED - 1))
                        .isEqualTo(1L);
                moved += cluster.processes[replica].metrics().transferBytes();
                recovered
                        .append(' ')
                        .append(cluster.processes[replica].recovered().seq());
            }
            System.out.println("quorum whole-cluster restart under load (" + (config.r() >= 1 ? "bft" : "crash")
                    + "): stopped at verifier batches " + java.util.Arrays.toString(committed) + ", view "
                    + viewBefore + ", " + ackedAtStop + " adds acknowledged; replicas recovered committed batches"
                    + recovered + "; 100 more adds " + millis + " ms after the restart, in view "
                    + cluster.processes[0].view() + "; " + moved + " bytes transferred; now at batch "
                    + after.stableSeq());
            assertThat(cluster.failures).isEmpty();
        }
    }

    /**
     * Load, then every process stops once the execution replicas committed what the verifiers did (a planned
     * restart: docs/quorum.md, "Durable replicas", says why a stop under load may leave the verifiers' start
     * where no replica's disk reaches); all start again from their folders, choose a new view from what the
     * verifiers remembered, and serve: every acknowledged add is there, and the replicas moved no state.
     */
    private void restartAll(QuorumConfig config) throws Exception {
        int[] processes = config.processes();
        int[] replicas = config.executionReplicas();
        try (QuorumCluster cluster = QuorumCluster.durable(config, storage)) {
            fill(cluster.client(90));
            CounterLoad load = new CounterLoad(cluster, 4);
            load.awaitProgress(200);
            load.stop();
            // The replicas' equal state and the verifiers' last batch are read together, again until they agree:
            // a batch the verifiers commit after a first snapshot of the replicas moves the point to stop at.
            ReplicaRuntime.StateSummary[] settled = new ReplicaRuntime.StateSummary[1];
            QuorumCluster.await("the execution replicas committed what every verifier did", () -> {
                ReplicaRuntime.StateSummary now = cluster.awaitEqualStates(replicas);
                for (int node : config.verifiers()) {
                    if (cluster.processes[node].status().verifiedSeq() != now.stableSeq()) {
                        return false;
                    }
                }
                settled[0] = now;
                return true;
            });
            ReplicaRuntime.StateSummary before = settled[0];
            long viewBefore = cluster.processes[0].view();
            for (int node : processes) {
                cluster.crash(node);
            }

            long restartedAt = System.nanoTime();
            for (int node : processes) {
                cluster.start(node, false);
            }
            for (int replica : replicas) {
                assertThat(cluster.processes[replica].recovered().seq())
                        .as("node %d recovered the last batch", replica)
                        .isEqualTo(before.stableSeq());
            }
            EveClient client = cluster.client(91);
            Reply reply = client.submit(CounterApp.add(FIRST_FILLED, 1)).get(60, TimeUnit.SECONDS);
            long millis = (System.nanoTime() - restartedAt) / 1_000_000;
            assertThat(new String(reply.payload(), java.nio.charset.StandardCharsets.UTF_8))
                    .isEqualTo("2");
            ReplicaRuntime.StateSummary after = cluster.awaitEqualStates(replicas);
            long viewAfter = cluster.processes[0].view();
            long moved = 0;
            for (int replica : replicas) {
                load.assertState(cluster.apps[replica]);
                assertThat(cluster.apps[replica].counters.get(FIRST_FILLED + 1)).isEqualTo(1L);
                moved += cluster.processes[replica].metrics().transferBytes();
            }
            System.out.println("quorum whole-cluster restart (" + (config.r() >= 1 ? "bft" : "crash")
                    + "): every process restarted from batch " + before.stableSeq() + " in view " + viewBefore
                    + "; first reply " + millis + " ms after the restart, in view " + viewAfter + "; "
                    + moved + " bytes transferred; now at batch " + after.stableSeq());
            assertThat(viewAfter).as("a new view above the remembered one").isGreaterThan(viewBefore);
            assertThat(moved).as("bytes moved between the replicas").isZero();
            assertThat(cluster.failures).isEmpty();
        }
    }

    private void restartFromDisk(QuorumConfig config, int node) throws Exception {
        try (QuorumCluster cluster = QuorumCluster.durable(config, storage)) {
            fill(cluster.client(90));
            try (CounterLoad load = new CounterLoad(cluster, 4)) {
                load.awaitProgress(50);
                cluster.crash(node);
                load.awaitProgress(50);

                cluster.start(node, false);
                Recovered recovered = cluster.processes[node].recovered();
                assertThat(recovered.seq()).as("batch recovered from disk").isPositive();
                assertThat(recovered.checkpointSeq()).as("checkpoint recovered").isPositive();
                cluster.processes[node].awaitRole(Role.BACKUP, IN_SERVICE_BOUND);
                load.awaitProgress(100);
                long fromDisk = cluster.processes[node].metrics().transferBytes();
                cluster.awaitEqualStates(config.executionReplicas());

                // The same process without its folder takes the whole state.
                cluster.crash(node);
                Files.move(storage.resolve("node-" + node), storage.resolve("node-" + node + ".moved"));
                cluster.start(node, true);
                assertThat(cluster.processes[node].recovered().any()).isFalse();
                cluster.processes[node].awaitRole(Role.BACKUP, IN_SERVICE_BOUND);
                load.awaitProgress(50);
                QuorumCluster.await(
                        "node " + node + " installs a transfer",
                        () -> cluster.processes[node].metrics().transfersInstalled() > 0);
                long full = cluster.processes[node].metrics().transferBytes();
                System.out.println(
                        "quorum durable restart (" + (config.r() >= 1 ? "bft" : "crash") + "): recovered batch "
                                + recovered.seq() + " (checkpoint " + recovered.checkpointSeq() + ", "
                                + recovered.replayed() + " logged batches replayed); moved " + fromDisk
                                + " bytes from the peers, against " + full + " bytes without the folder");
                assertThat(fromDisk)
                        .as("bytes moved after a restart from disk vs a full transfer")
                        .isLessThan(full / 10);

                load.stop();
                int[] replicas = config.executionReplicas();
                cluster.awaitEqualStates(replicas);
                for (int replica : replicas) {
                    load.assertState(cluster.apps[replica]);
                    for (long key = FIRST_FILLED; key < FIRST_FILLED + FILLED; key++) {
                        assertThat(cluster.apps[replica].counters.get(key))
                                .as("replica %d, counter %d", replica, key)
                                .isEqualTo(1L);
                    }
                }
                assertThat(cluster.failures).isEmpty();
            }
        }
    }

    /** Adds 1 to each counter of {@code FIRST_FILLED..}, 200 requests in flight at most: a state to transfer. */
    private static void fill(EveClient client) throws Exception {
        List<CompletableFuture<Reply>> inFlight = new ArrayList<>();
        for (long key = FIRST_FILLED; key < FIRST_FILLED + FILLED; key++) {
            inFlight.add(client.submit(CounterApp.add(key, 1)));
            if (inFlight.size() == 200) {
                awaitAll(inFlight);
            }
        }
        awaitAll(inFlight);
    }

    private static void awaitAll(List<CompletableFuture<Reply>> futures) throws Exception {
        for (CompletableFuture<Reply> future : futures) {
            assertThat(future.get(30, TimeUnit.SECONDS).error()).isFalse();
        }
        futures.clear();
    }
}
