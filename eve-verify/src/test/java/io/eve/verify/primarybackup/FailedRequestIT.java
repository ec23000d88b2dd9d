package io.eve.verify.primarybackup;

import static io.eve.verify.primarybackup.Cluster.FIRST;
import static io.eve.verify.primarybackup.Cluster.SECOND;
import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Reply;
import io.eve.client.EveClient;
import io.eve.mixer.conflict.KeyConflictMixer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An exception after partial writes leaves no trace on any replica: transfers that debit one counter and
 * then throw before crediting the other, mixed with transfers that complete, leave on both replicas the
 * counters the completed transfers alone give (so the total stays 0), and equal committed roots.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FailedRequestIT {
    private static final int KEYS = 8;

    @Test
    void shouldLeaveNoTraceOfAFailedTransferOnEitherReplicaWithOverlap() throws Exception {
        try (Cluster cluster = new Cluster(KeyConflictMixer.unbounded(), true)) {
            runTransfers(cluster);
        }
    }

    @Test
    void shouldLeaveNoTraceOfAFailedTransferOnEitherReplicaWithoutOverlap() throws Exception {
        try (Cluster cluster = new Cluster(KeyConflictMixer.unbounded(), false)) {
            runTransfers(cluster);
        }
    }

    private static void runTransfers(Cluster cluster) throws Exception {
        Map<Long, Long> expected = new TreeMap<>();
        List<CompletableFuture<Reply>> replies = new ArrayList<>();
        List<Boolean> failing = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            EveClient client = cluster.client(100 + c);
            for (int i = 0; i < 60; i++) {
                long from = (c * 3L + i) % KEYS;
                long to = (c + i * 5L + 1) % KEYS;
                long amount = 1 + (i % 7);
                boolean fails = (i + c) % 3 == 0;
                if (!fails) {
                    expected.merge(from, -amount, Long::sum);
                    expected.merge(to, amount, Long::sum);
                }
                replies.add(client.submit(CounterApp.move(from, to, amount, fails)));
                failing.add(fails);
            }
        }
        for (int i = 0; i < replies.size(); i++) {
            Reply reply = replies.get(i).get(20, TimeUnit.SECONDS);
            assertThat(reply.error()).as(reply.errorText()).isEqualTo(failing.get(i));
        }
        long seq = cluster.replicas[FIRST].committed();
        Cluster.await("the backup commits batch " + seq, () -> cluster.replicas[SECOND].committed() >= seq);
        assertThat(cluster.replicas[SECOND].stage().state().rootAt(seq))
                .isEqualTo(cluster.replicas[FIRST].stage().state().rootAt(seq));
        for (CounterApp app : cluster.apps) {
            Map<Long, Long> counters = new TreeMap<>();
            app.counters.forEach(counters::put);
            counters.values().removeIf(v -> v == 0);
            expected.values().removeIf(v -> v == 0);
            assertThat(counters).isEqualTo(expected);
            assertThat(counters.values().stream().mapToLong(Long::longValue).sum())
                    .isZero();
        }
        assertThat(cluster.failures).isEmpty();
    }
}
