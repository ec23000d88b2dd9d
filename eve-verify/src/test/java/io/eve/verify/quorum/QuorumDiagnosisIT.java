package io.eve.verify.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Reply;
import io.eve.client.EveClient;
import io.eve.merkle.graph.ReplicatedMap;
import io.eve.verify.diagnosis.Divergence;
import io.eve.verify.primarybackup.CounterApp;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/state.md, "Diagnosing a batch that still differs", in the quorum profiles: two of the three execution
 * replicas add a value of their own to every add, so no two tokens agree, not even after the view change's
 * sequential run; the verifiers name the object, and nothing commits until the skew is gone.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class QuorumDiagnosisIT {

    @Test
    void shouldNameTheObjectThatStillDiffersWithTheCrashProfile() throws Exception {
        nameTheObject(QuorumCluster.crash());
    }

    @Test
    void shouldNameTheObjectThatStillDiffersWithTheBftProfile() throws Exception {
        nameTheObject(QuorumCluster.bft());
    }

    private static long value(Reply reply) {
        assertThat(reply.error()).as(reply.errorText()).isFalse();
        return Long.parseLong(new String(reply.payload(), StandardCharsets.UTF_8));
    }

    private static void nameTheObject(QuorumCluster created) throws Exception {
        try (QuorumCluster cluster = created) {
            EveClient client = cluster.client(100);
            assertThat(value(client.submit(CounterApp.add(1, 1)).get(30, TimeUnit.SECONDS)))
                    .isEqualTo(1);
            cluster.apps[1].skew = 1000;
            cluster.apps[2].skew = 2000;

            CompletableFuture<Reply> pending = client.submit(CounterApp.add(1, 5));
            QuorumCluster.await(
                    "verifier 0 diagnosed a first batch of a view",
                    () -> cluster.processes[0].status().divergedObjects() > 0);

            Divergence divergence = cluster.processes[0]
                    .inspect(roles -> ((QuorumRoles) roles).verifier().lastDivergence())
                    .orElseThrow();
            long counters = cluster.apps[0].state.idOf(cluster.apps[0].counters);
            assertThat(divergence.differences()).singleElement().satisfies(difference -> {
                assertThat(difference.id()).isEqualTo(counters);
                assertThat(difference.here().orElseThrow().className()).isEqualTo(ReplicatedMap.class.getName());
                assertThat(difference.there().orElseThrow().className()).isEqualTo(ReplicatedMap.class.getName());
            });
            assertThat(pending)
                    .as("nothing commits while no two replicas agree")
                    .isNotDone();

            cluster.apps[1].skew = 0;
            cluster.apps[2].skew = 0;
            assertThat(value(pending.get(60, TimeUnit.SECONDS))).isEqualTo(6);
            cluster.awaitEqualStates(0, 1, 2);
            assertThat(cluster.failures).isEmpty();
        }
    }
}
