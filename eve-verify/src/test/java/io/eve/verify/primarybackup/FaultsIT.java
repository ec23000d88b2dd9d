package io.eve.verify.primarybackup;

import static io.eve.verify.primarybackup.Cluster.FIRST;
import static io.eve.verify.primarybackup.Cluster.SECOND;
import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Reply;
import io.eve.client.EveClient;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.mixer.experiment.FalseNegativeMixer;
import io.eve.protocol.Message;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 90, unit = TimeUnit.SECONDS)
class FaultsIT {

    private static long value(Reply reply) {
        assertThat(reply.error()).as(reply.errorText()).isFalse();
        return Long.parseLong(new String(reply.payload(), StandardCharsets.UTF_8));
    }

    @Test
    void shouldRollBackButNeverReplyWrongWhenTheMixerMissesEveryConflict() throws Exception {
        try (Cluster cluster = new Cluster(new FalseNegativeMixer(KeyConflictMixer.unbounded(), 1.0))) {
            for (int node = 0; node < 2; node++) {
                cluster.apps[node].atomicAdds = true;
                cluster.apps[node].slowClientParity = node;
            }
            List<CompletableFuture<Reply>> replies = new ArrayList<>();
            for (int round = 0; round < 20; round++) {
                for (int c = 0; c < 4; c++) {
                    replies.add(cluster.client(100 + round * 4 + c).submit(CounterApp.add(0, 1)));
                }
            }
            Set<Long> seen = new HashSet<>();
            for (CompletableFuture<Reply> reply : replies) {
                assertThat(seen.add(value(reply.get(30, TimeUnit.SECONDS))))
                        .as("each add sees its own total")
                        .isTrue();
            }
            assertThat(seen).hasSize(80).allMatch(v -> v >= 1 && v <= 80);
            assertThat(cluster.replicas[FIRST].metrics().rollbacks())
                    .as("misses made the replicas diverge")
                    .isPositive();
            assertThat(cluster.failures).isEmpty();
        }
    }

    @Test
    void shouldLoseNoAcknowledgedWriteWhenThePrimaryCrashesWithBatchesInFlight() throws Exception {
        try (Cluster cluster = new Cluster()) {
            List<EveClient> clients = List.of(cluster.client(100), cluster.client(101), cluster.client(102));
            List<List<CompletableFuture<Reply>>> replies = new ArrayList<>();
            for (int c = 0; c < clients.size(); c++) {
                List<CompletableFuture<Reply>> mine = new ArrayList<>();
                for (int i = 0; i < 30; i++) {
                    mine.add(clients.get(c).submit(CounterApp.add(c, 1)));
                }
                replies.add(mine);
            }
            replies.get(0).get(5).get(20, TimeUnit.SECONDS);
            cluster.crash(FIRST);
            for (int c = 0; c < clients.size(); c++) {
                Set<Long> values = new HashSet<>();
                for (CompletableFuture<Reply> reply : replies.get(c)) {
                    values.add(value(reply.get(30, TimeUnit.SECONDS)));
                }
                assertThat(values)
                        .as("client %d: every add applied exactly once", c)
                        .hasSize(30);
                assertThat(cluster.apps[SECOND].counters.get((long) c)).isEqualTo(30L);
            }
            assertThat(cluster.replicas[SECOND].isPrimary()).isTrue();
            assertThat(cluster.failures).isEmpty();
        }
    }

    @Test
    void shouldCatchUpAPausedBackupWithATransferOfWhatChanged() throws Exception {
        try (Cluster cluster = new Cluster()) {
            EveClient client = cluster.client(100);
            List<CompletableFuture<Reply>> preload = new ArrayList<>();
            for (int key = 0; key < 2000; key++) {
                preload.add(client.submit(CounterApp.add(key, 1)));
            }
            for (CompletableFuture<Reply> reply : preload) {
                value(reply.get(30, TimeUnit.SECONDS));
            }
            int fullSize = cluster.replicas[FIRST].stage().deltaSince(0).size();

            AtomicInteger transferred = new AtomicInteger(-1);
            cluster.clocks[SECOND].pause();
            cluster.network.setFirewall((from, to, message) -> from == SECOND || to == SECOND ? null : message);
            for (int i = 0; i < 20; i++) {
                value(client.submit(CounterApp.add(i % 3, 1)).get(20, TimeUnit.SECONDS));
            }
            Cluster.await("the primary goes on alone", () -> !cluster.peerAlive(FIRST));
            cluster.network.setFirewall((from, to, message) -> {
                if (message instanceof Message.StateTransfer transfer) {
                    transferred.set(transfer.delta().size());
                }
                return message;
            });
            cluster.clocks[SECOND].resume();
            Cluster.await(
                    "the backup catches up",
                    () -> cluster.replicas[SECOND].metrics().transfersInstalled() > 0);
            assertThat(value(client.submit(CounterApp.add(0, 1)).get(20, TimeUnit.SECONDS)))
                    .isEqualTo(9);
            long seq = cluster.replicas[FIRST].committed();
            Cluster.await("the backup verifies again", () -> cluster.replicas[SECOND].committed() >= seq);
            assertThat(cluster.replicas[SECOND].view())
                    .as("no takeover while paused")
                    .isZero();
            assertThat(transferred.get())
                    .as("delta of 3 changed counters vs %d bytes of state", fullSize)
                    .isPositive()
                    .isLessThan(fullSize / 20);
            assertThat(cluster.failures).isEmpty();
        }
    }
}
