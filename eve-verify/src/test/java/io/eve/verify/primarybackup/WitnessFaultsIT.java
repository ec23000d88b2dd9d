package io.eve.verify.primarybackup;

import static io.eve.verify.primarybackup.Cluster.FIRST;
import static io.eve.verify.primarybackup.Cluster.SECOND;
import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Reply;
import io.eve.client.EveClient;
import io.eve.verify.runtime.ReplicaRuntime;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The pair with a witness in one JVM (docs/primary-backup.md, "Fencing with a witness"): a replica cut off
 * from everyone for three failure timeouts, while clients write, then healed. Every acknowledged write is in
 * the final state of both replicas, and their roots are equal. Asserts on replies and state, not on timing.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WitnessFaultsIT {
    private static final long FAILURE_TIMEOUT_NANOS = Cluster.config(FIRST).failureTimeoutNanos();

    /** One client per counter, each add after the last one's reply: the replies of counter c are 1, 2, 3... */
    private static final class Writers {
        private final List<Thread> threads = new ArrayList<>();
        private final List<List<Long>> acknowledged = new ArrayList<>();
        private final List<Throwable> failures = new CopyOnWriteArrayList<>();
        private final AtomicBoolean stop = new AtomicBoolean();

        Writers(Cluster cluster, int count) {
            for (int c = 0; c < count; c++) {
                long key = c;
                EveClient client = cluster.client(100 + c);
                List<Long> values = new CopyOnWriteArrayList<>();
                acknowledged.add(values);
                Thread thread = new Thread(() -> write(client, key, values), "writer-" + c);
                thread.setDaemon(true);
                threads.add(thread);
                thread.start();
            }
        }

        private void write(EveClient client, long key, List<Long> values) {
            try {
                while (!stop.get()) {
                    Reply reply = client.submit(CounterApp.add(key, 1)).get(60, TimeUnit.SECONDS);
                    if (reply.error()) {
                        throw new AssertionError("add to counter " + key + " failed: " + reply.errorText());
                    }
                    values.add(Long.parseLong(new String(reply.payload(), StandardCharsets.UTF_8)));
                }
            } catch (Exception | AssertionError e) {
                failures.add(e);
            }
        }

        long total() {
            return acknowledged.stream().mapToLong(List::size).sum();
        }

        /** Stops after each writer's request in flight is answered. */
        void stop() throws InterruptedException {
            stop.set(true);
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(90));
            }
        }
    }

    @Test
    void shouldLoseNoAcknowledgedWriteWhenTheBackupIsCutOffForThreeFailureTimeouts() throws Exception {
        runCutOff(false);
    }

    @Test
    void shouldLoseNoAcknowledgedWriteWhenThePrimaryIsCutOffForThreeFailureTimeouts() throws Exception {
        runCutOff(true);
    }

    /** {@link Cluster#await}, naming each node's state if it times out. */
    private static void await(Cluster cluster, String what, java.util.function.BooleanSupplier condition) {
        try {
            Cluster.await(what, condition);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + ": " + cluster.describe(), e);
        }
    }

    private static void runCutOff(boolean cutThePrimary) throws Exception {
        try (Cluster cluster = Cluster.withWitness()) {
            Writers writers = new Writers(cluster, 3);
            Cluster.await("the pair serves", () -> writers.total() >= 30);
            Cluster.await(
                    "the witness knows the pair's state and the primary verifies with its backup",
                    () -> cluster.witnessState().isPresent()
                            && cluster.isPrimary(FIRST) != cluster.isPrimary(SECOND)
                            && cluster.peerAlive(cluster.isPrimary(FIRST) ? FIRST : SECOND));
            int primary = cluster.isPrimary(FIRST) ? FIRST : SECOND;
            int cut = cutThePrimary ? primary : (primary == FIRST ? SECOND : FIRST);
            int survivor = cut == FIRST ? SECOND : FIRST;

            long cutAt = System.nanoTime();
            cluster.network.setFirewall((from, to, message) -> from == cut || to == cut ? null : message);
            if (cutThePrimary) {
                await(cluster, "the backup takes over with the witness's grant", () -> cluster.isPrimary(survivor));
            } else {
                await(cluster, "the primary goes on alone", () -> !cluster.peerAlive(survivor));
            }
            long beforeOutage = writers.total();
            await(
                    cluster,
                    "three failure timeouts pass, with writes acknowledged meanwhile",
                    () -> System.nanoTime() - cutAt > 3 * FAILURE_TIMEOUT_NANOS && writers.total() > beforeOutage + 20);
            cluster.network.setFirewall((from, to, message) -> message);

            writers.stop();
            assertThat(writers.failures).isEmpty();
            await(
                    cluster,
                    "both replicas hold the same committed state",
                    () -> cluster.replicas[FIRST].summary().equals(cluster.replicas[SECOND].summary())
                            && cluster.replicas[cut].committed() == cluster.replicas[survivor].committed());

            assertThat(cluster.isPrimary(survivor)).isTrue();
            ReplicaRuntime.StateSummary first = cluster.replicas[FIRST].summary();
            assertThat(cluster.replicas[SECOND].summary().stableRoot()).isEqualTo(first.stableRoot());
            for (int c = 0; c < writers.acknowledged.size(); c++) {
                List<Long> values = writers.acknowledged.get(c);
                long count = values.size();
                assertThat(values)
                        .as("counter %d: each acknowledged add saw its own total", c)
                        .doesNotHaveDuplicates();
                assertThat(values.stream().mapToLong(Long::longValue).max().orElse(0))
                        .isEqualTo(count);
                for (int node = 0; node < 2; node++) {
                    assertThat(cluster.apps[node].counters.get((long) c))
                            .as("counter %d on node %d: every acknowledged add, once", c, node)
                            .isEqualTo(count);
                }
            }
            assertThat(cluster.replicas[survivor].metrics().transfersInstalled()
                            + cluster.replicas[cut].metrics().transfersInstalled())
                    .as("the cut-off replica caught up by state transfer")
                    .isPositive();
            assertThat(cluster.failures).isEmpty();
        }
    }
}
