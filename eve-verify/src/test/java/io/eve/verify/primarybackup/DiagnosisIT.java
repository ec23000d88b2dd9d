package io.eve.verify.primarybackup;

import static io.eve.verify.primarybackup.Cluster.FIRST;
import static io.eve.verify.primarybackup.Cluster.SECOND;
import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Reply;
import io.eve.client.EveClient;
import io.eve.merkle.graph.ReplicatedMap;
import io.eve.verify.diagnosis.Divergence;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** docs/state.md, "Diagnosing a batch that still differs", with two replicas in one JVM. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DiagnosisIT {

    private static long value(Reply reply) {
        assertThat(reply.error()).as(reply.errorText()).isFalse();
        return Long.parseLong(new String(reply.payload(), StandardCharsets.UTF_8));
    }

    /**
     * Sends adds of 5 to counter 1 until the primary has diagnosed a batch. A backup that a loaded machine keeps
     * silent past the failure timeout makes the primary commit such a batch alone, with nothing to compare, so
     * the first add is not always enough.
     */
    private static void addUntilDiagnosed(Cluster cluster, EveClient client) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
        while (machine(cluster).lastDiagnosis().isEmpty()) {
            assertThat(System.nanoTime()).as("a diagnosis within 40 s").isLessThan(deadline);
            value(client.submit(CounterApp.add(1, 5)).get(20, TimeUnit.SECONDS));
        }
    }

    private static PrimaryBackup machine(Cluster cluster) {
        return cluster.replicas[FIRST].inspect(roles -> ((PrimaryBackupRoles) roles).machine());
    }

    @Test
    void shouldSayTheBackupsDigestsAreMissingInsteadOfGuessing() throws Exception {
        try (Cluster cluster = new Cluster()) {
            Cluster.await("node 0 leads", () -> cluster.isPrimary(FIRST));
            cluster.network.setFirewall(
                    (from, to, message) -> message instanceof io.eve.protocol.Message.ObjectDigests ? null : message);
            EveClient client = cluster.client(100);
            assertThat(value(client.submit(CounterApp.add(1, 1)).get(20, TimeUnit.SECONDS)))
                    .isEqualTo(1);
            cluster.apps[SECOND].skew = 1000;

            addUntilDiagnosed(cluster, client);

            assertThat(machine(cluster).lastDiagnosis().orElseThrow())
                    .isEqualTo("node 1 sent no object digests for it (lost, or a version without them), so the"
                            + " objects are not named; the replies differ");
            assertThat(machine(cluster).lastDivergence()).isEmpty();
            assertThat(cluster.replicas[FIRST].status().divergedObjects()).isZero();
            assertThat(cluster.failures).isEmpty();
        }
    }

    @Test
    void shouldNameTheObjectThatStillDiffersAfterSequentialReExecution() throws Exception {
        try (Cluster cluster = new Cluster()) {
            Cluster.await("node 0 leads", () -> cluster.isPrimary(FIRST));
            EveClient client = cluster.client(100);
            assertThat(value(client.submit(CounterApp.add(1, 1)).get(20, TimeUnit.SECONDS)))
                    .isEqualTo(1);
            // The backup adds a value of its own to every add, however it runs them.
            cluster.apps[SECOND].skew = 1000;

            addUntilDiagnosed(cluster, client);
            Divergence divergence = cluster.replicas[FIRST]
                    .inspect(roles -> ((PrimaryBackupRoles) roles).machine().lastDivergence())
                    .orElseThrow();
            long counters = cluster.apps[FIRST].state.idOf(cluster.apps[FIRST].counters);
            assertThat(divergence.differences()).singleElement().satisfies(difference -> {
                assertThat(difference.id()).isEqualTo(counters);
                assertThat(difference.here().orElseThrow().className()).isEqualTo(ReplicatedMap.class.getName());
                assertThat(difference.there().orElseThrow().className()).isEqualTo(ReplicatedMap.class.getName());
                assertThat(difference.here().orElseThrow().digest())
                        .isNotEqualTo(difference.there().orElseThrow().digest());
            });
            assertThat(machine(cluster).lastDiagnosis().orElseThrow())
                    .startsWith("the object that differs: object " + counters + " (eve.Map, "
                            + ReplicatedMap.class.getName() + " here; eve.Map, " + ReplicatedMap.class.getName()
                            + " at node 1)")
                    .endsWith("the replies differ");
            long named = cluster.replicas[FIRST].status().divergedObjects();
            assertThat(named).as("one object per diagnosis, at least one").isPositive();
            assertThat(cluster.replicas[FIRST].status().toJson()).contains("\"divergedObjects\": " + named);
            assertThat(cluster.failures).isEmpty();
        }
    }
}
