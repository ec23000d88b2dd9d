package io.eve.verify.primarybackup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.Replica;
import io.eve.ReplicaClosedException;
import io.eve.ReplicaStatus;
import io.eve.client.EveClient;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The {@link Replica} handle of the runtime: roles to wait for, status, and calls on a closed replica. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReplicaHandleIT {
    private static final Duration LIMIT = Duration.ofSeconds(20);

    @Test
    void shouldReportRolesThroughAFailoverAndARejoin() throws Exception {
        try (Cluster cluster = new Cluster()) {
            ReplicaStatus first = cluster.replicas[Cluster.FIRST].awaitRole(Replica.Role.PRIMARY, LIMIT);
            assertThat(first.roles()).isEqualTo("primary");
            assertThat(first.node()).isEqualTo(Cluster.FIRST);
            cluster.replicas[Cluster.SECOND].awaitRole(Replica.Role.BACKUP, LIMIT);
            EveClient client = cluster.client(100);
            for (int i = 0; i < 20; i++) {
                client.call(CounterApp.add(i % 4, 1));
            }
            Cluster.await(
                    "both replicas report the same committed state",
                    () -> sameState(cluster.replicas[0].status(), cluster.replicas[1].status()));
            assertThat(cluster.replicas[Cluster.FIRST].status().repliesReleased())
                    .isEqualTo(20);

            cluster.crash(Cluster.FIRST);
            ReplicaStatus takeover = cluster.replicas[Cluster.SECOND].awaitRole(Replica.Role.PRIMARY, LIMIT);
            assertThat(takeover.view()).isPositive();

            cluster.start(Cluster.FIRST, true);
            ReplicaStatus rejoined = cluster.replicas[Cluster.FIRST].awaitRole(Replica.Role.BACKUP, LIMIT);
            assertThat(rejoined.transfers()).isPositive();
            assertThat(cluster.failures).isEmpty();
        }
    }

    @Test
    void shouldFailAtOnceOnAClosedReplica() throws Exception {
        try (Cluster cluster = new Cluster()) {
            Replica replica = cluster.replicas[Cluster.SECOND];
            replica.awaitRole(Replica.Role.BACKUP, LIMIT);
            assertThatThrownBy(replica::start)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("already started");
            assertThatThrownBy(() -> replica.awaitRole(Replica.Role.PRIMARY, Duration.ofMillis(50)))
                    .isInstanceOf(TimeoutException.class)
                    .hasMessageContaining("did not become PRIMARY");

            replica.close();
            long start = System.nanoTime();
            assertThatThrownBy(replica::status)
                    .isInstanceOf(ReplicaClosedException.class)
                    .hasMessage("node 1 is closed");
            assertThatThrownBy(() -> replica.awaitRole(Replica.Role.PRIMARY, LIMIT))
                    .isInstanceOf(ReplicaClosedException.class);
            assertThatThrownBy(replica::start).isInstanceOf(ReplicaClosedException.class);
            // A closed replica has no threads to wait for: every call above failed without a timeout.
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
            replica.close(); // idempotent
        }
    }

    private static boolean sameState(ReplicaStatus first, ReplicaStatus second) {
        return first.stableSeq() > 0
                && first.stableSeq() == second.stableSeq()
                && first.stableRoot().equals(second.stableRoot());
    }
}
