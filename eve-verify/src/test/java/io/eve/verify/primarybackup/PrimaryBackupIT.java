package io.eve.verify.primarybackup;

import static io.eve.verify.primarybackup.Cluster.FIRST;
import static io.eve.verify.primarybackup.Cluster.SECOND;
import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Reply;
import io.eve.client.EveClient;
import io.eve.merkle.Digest;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.verify.runtime.ReplicaRuntime;
import io.eve.verify.session.SessionLoad;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PrimaryBackupIT {

    private static long value(Reply reply) {
        assertThat(reply.error()).as(reply.errorText()).isFalse();
        return Long.parseLong(new String(reply.payload(), StandardCharsets.UTF_8));
    }

    private static Digest committedRoot(ReplicaRuntime replica, long seq) {
        return replica.stage().state().rootAt(seq);
    }

    @Test
    void shouldCommitConcurrentClientsRequestsOnBothReplicas() throws Exception {
        try (Cluster cluster = new Cluster()) {
            List<CompletableFuture<Reply>> replies = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                EveClient client = cluster.client(100 + c);
                for (int i = 0; i < 50; i++) {
                    replies.add(client.submit(CounterApp.add(i % 10, 1)));
                }
            }
            for (CompletableFuture<Reply> reply : replies) {
                value(reply.get(20, TimeUnit.SECONDS));
            }
            Reply total = cluster.client(200).submit(CounterApp.get(3)).get(20, TimeUnit.SECONDS);
            assertThat(value(total)).isEqualTo(20);
            long seq = cluster.replicas[FIRST].committed();
            Cluster.await("the backup commits batch " + seq, () -> cluster.replicas[SECOND].committed() >= seq);
            assertThat(committedRoot(cluster.replicas[SECOND], seq))
                    .isEqualTo(committedRoot(cluster.replicas[FIRST], seq));
            assertThat(cluster.failures).isEmpty();
        }
    }

    @Test
    void shouldCommitTheSameWithoutBatchOverlap() throws Exception {
        // Every other test runs with overlap (the default), where the counters' shared replicated map makes
        // an early batch touch an object of the batch in progress, so the stages detect it and run both
        // again one after the other. Off, each batch starts when the one before it is sealed.
        try (Cluster cluster = new Cluster(KeyConflictMixer.unbounded(), false)) {
            List<CompletableFuture<Reply>> replies = new ArrayList<>();
            for (int c = 0; c < 8; c++) {
                EveClient client = cluster.client(100 + c);
                for (int i = 0; i < 100; i++) {
                    replies.add(client.submit(CounterApp.add(i % 10, 1)));
                }
            }
            for (CompletableFuture<Reply> reply : replies) {
                value(reply.get(20, TimeUnit.SECONDS));
            }
            for (int key = 0; key < 10; key++) {
                Reply total =
                        cluster.client(200 + key).submit(CounterApp.get(key)).get(20, TimeUnit.SECONDS);
                assertThat(value(total)).as("counter %d", key).isEqualTo(80);
            }
            long seq = cluster.replicas[FIRST].committed();
            Cluster.await("the backup commits batch " + seq, () -> cluster.replicas[SECOND].committed() >= seq);
            assertThat(committedRoot(cluster.replicas[SECOND], seq))
                    .isEqualTo(committedRoot(cluster.replicas[FIRST], seq));
            assertThat(cluster.failures).isEmpty();
        }
    }

    @Test
    void shouldRollBackAndReexecuteWhenOneReplicaDiverges() throws Exception {
        try (Cluster cluster = new Cluster()) {
            EveClient client = cluster.client(100);
            assertThat(value(client.submit(CounterApp.add(1, 5)).get(20, TimeUnit.SECONDS)))
                    .isEqualTo(5);
            cluster.apps[SECOND].corruptNext.set(1);
            assertThat(value(client.submit(CounterApp.add(1, 5)).get(20, TimeUnit.SECONDS)))
                    .as("the divergent execution is rolled back; the reply comes from the agreed re-execution")
                    .isEqualTo(10);
            assertThat(value(client.submit(CounterApp.get(1)).get(20, TimeUnit.SECONDS)))
                    .isEqualTo(10);
            assertThat(cluster.apps[SECOND].corruptNext.get()).isZero();
            assertThat(cluster.failures).isEmpty();
        }
    }

    @Test
    void shouldRepairTheBackupByTransferWhenSequentialReexecutionStillDiffers() throws Exception {
        try (Cluster cluster = new Cluster()) {
            EveClient client = cluster.client(100);
            assertThat(value(client.submit(CounterApp.add(2, 1)).get(20, TimeUnit.SECONDS)))
                    .isEqualTo(1);
            cluster.apps[SECOND].corruptNext.set(2);
            assertThat(value(client.submit(CounterApp.add(2, 1)).get(20, TimeUnit.SECONDS)))
                    .isEqualTo(2);
            assertThat(value(client.submit(CounterApp.add(2, 1)).get(20, TimeUnit.SECONDS)))
                    .isEqualTo(3);
            long seq = cluster.replicas[FIRST].committed();
            Cluster.await("the backup commits batch " + seq, () -> cluster.replicas[SECOND].committed() >= seq);
            assertThat(cluster.apps[SECOND].counters.get(2L)).isEqualTo(3L);
            assertThat(cluster.failures).isEmpty();
        }
    }

    @Test
    void shouldFailOverWithoutLosingAcknowledgedWritesAndRejoinByTransfer() throws Exception {
        try (Cluster cluster = new Cluster()) {
            EveClient client = cluster.client(100);
            long acknowledged = 0;
            for (int i = 0; i < 20; i++) {
                acknowledged = value(client.submit(CounterApp.add(7, 1)).get(20, TimeUnit.SECONDS));
            }
            cluster.crash(FIRST);
            for (int i = 0; i < 20; i++) {
                acknowledged = value(client.submit(CounterApp.add(7, 1)).get(20, TimeUnit.SECONDS));
            }
            assertThat(acknowledged).isEqualTo(40);
            assertThat(cluster.replicas[SECOND].isPrimary()).isTrue();

            cluster.start(FIRST, true);
            Cluster.await(
                    "the old primary rejoins",
                    () -> cluster.peerAlive(SECOND) && cluster.replicas[FIRST].committed() >= 40 - 20);
            for (int i = 0; i < 10; i++) {
                acknowledged = value(client.submit(CounterApp.add(7, 1)).get(20, TimeUnit.SECONDS));
            }
            assertThat(acknowledged).isEqualTo(50);
            long seq = cluster.replicas[SECOND].committed();
            Cluster.await("the rejoined backup commits batch " + seq, () -> cluster.replicas[FIRST].committed() >= seq);
            assertThat(cluster.apps[FIRST].counters.get(7L)).isEqualTo(50L);
            assertThat(cluster.failures).isEmpty();
        }
    }

    @Test
    void shouldApplyEveryUpdateOfOneClientsThirtyTwoThreadsExactlyOnceAcrossAFailover() throws Exception {
        try (Cluster cluster = new Cluster()) {
            SessionLoad load = new SessionLoad(cluster.client(100), 32, 8);
            load.run(40, 300, () -> cluster.crash(FIRST), Duration.ofSeconds(40));
            assertThat(load.problems()).isEmpty();
            assertThat(load.acknowledged()).isEqualTo(32 * 40);
            assertThat(cluster.replicas[SECOND].isPrimary()).isTrue();
            assertThat(load.returned())
                    .as("per counter, the acknowledged adds returned 1..n, each once")
                    .isEqualTo(load.exactlyOnce());
            for (long key = 0; key < 8; key++) {
                assertThat(cluster.apps[SECOND].counters.get(key))
                        .as("counter %d", key)
                        .isEqualTo(32 * 40 / 8);
            }
            assertThat(cluster.failures).isEmpty();
        }
    }

    @Test
    void shouldBatchSmallAtLowLoadAndLargeAtHighLoad() throws Exception {
        try (Cluster lowLoad = new Cluster()) {
            EveClient client = lowLoad.client(100);
            for (int i = 0; i < 30; i++) {
                value(client.submit(CounterApp.add(i, 1)).get(20, TimeUnit.SECONDS));
            }
            assertThat(lowLoad.replicas[FIRST].metrics().meanBatchSize())
                    .as("one request at a time")
                    .isLessThan(1.5);
        }
        try (Cluster highLoad = new Cluster()) {
            for (int node = 0; node < 2; node++) {
                highLoad.apps[node].slowClientParity = 0;
                highLoad.apps[node].atomicAdds = true;
            }
            List<CompletableFuture<Reply>> replies = new ArrayList<>();
            for (int c = 0; c < 32; c++) {
                EveClient client = highLoad.client(100 + 2 * c);
                for (int i = 0; i < 10; i++) {
                    replies.add(client.submit(CounterApp.add(c, 1)));
                }
            }
            for (CompletableFuture<Reply> reply : replies) {
                value(reply.get(30, TimeUnit.SECONDS));
            }
            assertThat(highLoad.replicas[FIRST].metrics().meanBatchSize())
                    .as("requests pile up while batches execute, so batches fill up")
                    .isGreaterThan(4);
        }
    }
}
