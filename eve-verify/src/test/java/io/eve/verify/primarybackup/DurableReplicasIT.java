package io.eve.verify.primarybackup;

import static io.eve.verify.primarybackup.Cluster.FIRST;
import static io.eve.verify.primarybackup.Cluster.SECOND;
import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Replica;
import io.eve.Reply;
import io.eve.client.EveClient;
import io.eve.storage.Recovered;
import io.eve.storage.Storage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Primary-backup replicas with durable storage: restarts from disk (docs/operations.md, "Storage"). */
@Timeout(120)
class DurableReplicasIT {
    private static final int COUNTERS = 3000;

    @TempDir
    Path storage;

    /** Adds 1 to each of counters {@code 0..counters-1}, {@code times} over, 200 requests in flight at most. */
    private static void fill(EveClient client, int counters, int times) throws Exception {
        for (int round = 0; round < times; round++) {
            List<CompletableFuture<Reply>> inFlight = new ArrayList<>();
            for (int key = 0; key < counters; key++) {
                inFlight.add(client.submit(CounterApp.add(key, 1)));
                if (inFlight.size() == 200) {
                    awaitAll(inFlight);
                }
            }
            awaitAll(inFlight);
        }
    }

    private static void awaitAll(List<CompletableFuture<Reply>> futures) throws Exception {
        for (CompletableFuture<Reply> future : futures) {
            assertThat(future.get(30, TimeUnit.SECONDS).error()).isFalse();
        }
        futures.clear();
    }

    private static long add(EveClient client, long key) throws Exception {
        Reply reply = client.submit(CounterApp.add(key, 1)).get(30, TimeUnit.SECONDS);
        return Long.parseLong(new String(reply.payload(), StandardCharsets.UTF_8));
    }

    private static void awaitCaughtUp(Cluster cluster, int node, int peer) {
        Cluster.await(
                "node " + node + " serves as backup",
                () -> cluster.replicas[node].status().role() == Replica.Role.BACKUP);
        long seq = cluster.replicas[peer].committed();
        Cluster.await("node " + node + " commits batch " + seq, () -> cluster.replicas[node].committed() >= seq);
    }

    @Test
    void shouldRestartABackupFromItsDiskAndTakeOnlyTheChangesSince() throws Exception {
        try (Cluster cluster = Cluster.durable(storage)) {
            EveClient client = cluster.client(100);
            fill(client, COUNTERS, 1);
            cluster.crash(SECOND);
            for (int i = 0; i < 20; i++) {
                add(client, 7);
            }

            cluster.start(SECOND, false);
            Recovered recovered = cluster.replicas[SECOND].recovered();
            assertThat(recovered.seq()).isPositive();
            assertThat(recovered.checkpointSeq()).isPositive();
            awaitCaughtUp(cluster, SECOND, FIRST);
            long fromDisk = cluster.replicas[SECOND].metrics().transferBytes();
            assertThat(cluster.replicas[SECOND].metrics().transfersInstalled()).isEqualTo(1);
            assertThat(add(client, 7)).isEqualTo(1 + 20 + 1);
            awaitCaughtUp(cluster, SECOND, FIRST);
            assertThat(cluster.apps[SECOND].counters.get(7L)).isEqualTo(22L);
            assertThat(cluster.apps[SECOND].counters.get((long) COUNTERS - 1)).isEqualTo(1L);

            // The same node without its directory takes the whole state.
            cluster.crash(SECOND);
            java.nio.file.Files.move(storage.resolve("node-1"), storage.resolve("node-1.moved"));
            cluster.start(SECOND, true);
            assertThat(cluster.replicas[SECOND].recovered().any()).isFalse();
            awaitCaughtUp(cluster, SECOND, FIRST);
            long full = cluster.replicas[SECOND].metrics().transferBytes();
            assertThat(fromDisk)
                    .as("delta after a restart from disk vs a full transfer")
                    .isLessThan(full / 20);
            assertThat(cluster.failures).isEmpty();
        }
    }

    @Test
    void shouldLoseNoAcknowledgedWriteWhenBothReplicasStopAndRestartFromDisk() throws Exception {
        long acknowledged;
        try (Cluster cluster = Cluster.durable(storage)) {
            EveClient client = cluster.client(100);
            fill(client, 300, 2);
            acknowledged = 0;
            for (int i = 0; i < 30; i++) {
                acknowledged = add(client, 5000);
            }
            assertThat(acknowledged).isEqualTo(30);
            cluster.crash(SECOND);
            for (int i = 0; i < 10; i++) {
                acknowledged = add(client, 5000); // committed by the primary alone
            }
            cluster.crash(FIRST);
        }

        // Both come back. Each recovered something; the one that recovered more leads, as the primary of a view
        // above both recovered views, and the other joins it from what it recovered.
        try (Cluster restarted = Cluster.durableStopped(storage)) {
            Recovered[] recovered = {
                Storage.inspect(restarted.storageConfig(FIRST)), Storage.inspect(restarted.storageConfig(SECOND))
            };
            assertThat(recovered[SECOND].seq()).isPositive();
            int leader = recovered[FIRST].seq() >= recovered[SECOND].seq() ? FIRST : SECOND;
            int other = 1 - leader;
            long view = Math.max(recovered[FIRST].view(), recovered[SECOND].view()) + 1;
            while (Cluster.config(leader).primaryOf(view) != leader) {
                view++;
            }
            restarted.start(leader, false, view);
            restarted.start(other, false);
            assertThat(restarted.replicas[leader].recovered().seq()).isEqualTo(recovered[leader].seq());
            assertThat(restarted.replicas[leader].isPrimary()).isTrue();
            awaitCaughtUp(restarted, other, leader);

            EveClient client = restarted.client(101);
            assertThat(add(client, 5000)).isEqualTo(acknowledged + 1);
            awaitCaughtUp(restarted, other, leader);
            for (int node = 0; node < 2; node++) {
                CounterApp app = restarted.apps[node];
                assertThat(app.counters.get(5000L)).as("node %d", node).isEqualTo(acknowledged + 1);
                for (long key = 0; key < 300; key++) {
                    assertThat(app.counters.get(key))
                            .as("node %d, counter %d", node, key)
                            .isEqualTo(2L);
                }
            }
            assertThat(restarted.failures).isEmpty();
        }
    }
}
