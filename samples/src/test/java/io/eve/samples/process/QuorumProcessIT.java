package io.eve.samples.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Replica;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * The quorum profiles as deployed: crash (3 replica JVMs) and bft (4), TCP on 127.0.0.1, closed-loop
 * clients in this JVM. A replica is SIGKILLed under load and restarted with {@code --join}; no
 * acknowledged write may be lost or applied twice (the load's version check), and every execution replica
 * ends at the same stable batch with the same state root. Logs in {@code target/process-it/<test>/}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QuorumProcessIT {
    private static final int OBJECTS = 10_000;
    private static final Duration PROGRESS_LIMIT = Duration.ofSeconds(15);

    /**
     * Progress after a process dies: the view changes it may take double their timeout each time (2, 4,
     * 8 s here), and a run was seen needing three of them (view 1's leader was the dead process, view 2's
     * primary stalled after its transfer), so recovery gets the sum of three timeouts and a margin.
     */
    private static final Duration RECOVERY_LIMIT = Duration.ofSeconds(40);

    private static final Duration AGREEMENT_LIMIT = Duration.ofSeconds(20);

    @Test
    void shouldKeepEveryAcknowledgedWriteWhenTheCrashPrimaryIsKilledAndRejoins(TestInfo test) throws Exception {
        try (ReplicaProcesses cluster = ReplicaProcesses.startQuorum(workDir(test), "crash")) {
            ClosedLoopLoad load = ClosedLoopLoad.start(cluster.config(), 5_000, 8, OBJECTS);
            ClosedLoopLoad.Result result;
            try {
                load.awaitAcknowledged(300, PROGRESS_LIMIT);
                int primary = cluster.primary(PROGRESS_LIMIT);
                cluster.kill(primary);
                load.awaitAcknowledged(load.acknowledged() + 300, RECOVERY_LIMIT);
                cluster.restartJoining(primary);
                cluster.awaitStatus(primary, status -> status.transfers() > 0, AGREEMENT_LIMIT);
                load.awaitAcknowledged(load.acknowledged() + 300, PROGRESS_LIMIT);
            } finally {
                result = load.stop();
            }
            assertCorrect(result);
            cluster.awaitSameState(1, AGREEMENT_LIMIT, 0, 1, 2);
            assertThat(cluster.status(0).orElseThrow().view())
                    .as("the primary's death changed the view")
                    .isPositive();
        }
    }

    @Test
    void shouldKeepEveryAcknowledgedWriteWhenABftReplicaIsKilledAndRejoins(TestInfo test) throws Exception {
        try (ReplicaProcesses cluster = ReplicaProcesses.startQuorum(workDir(test), "bft")) {
            ClosedLoopLoad load = ClosedLoopLoad.start(cluster.config(), 6_000, 8, OBJECTS);
            ClosedLoopLoad.Result result;
            try {
                load.awaitAcknowledged(300, PROGRESS_LIMIT);
                int primary = cluster.primary(PROGRESS_LIMIT);
                int victim = (primary + 1) % 3;
                cluster.kill(victim);
                load.awaitAcknowledged(load.acknowledged() + 300, RECOVERY_LIMIT);
                cluster.restartJoining(victim);
                cluster.awaitStatus(victim, status -> status.transfers() > 0, AGREEMENT_LIMIT);
                load.awaitAcknowledged(load.acknowledged() + 300, PROGRESS_LIMIT);
            } finally {
                result = load.stop();
            }
            assertCorrect(result);
            cluster.awaitSameState(1, AGREEMENT_LIMIT, 0, 1, 2);
            assertThat(cluster.status(3).orElseThrow().role()).isEqualTo("verifier");
        }
    }

    /**
     * Issue 21 as reported: a verifier-only bft process killed and restarted with {@code --join} sat at
     * {@code JOINING} in view 0 for 86 s, waiting for a view change a healthy cluster never makes. It is
     * back as a verifier within seconds now, in the same view (docs/quorum.md, "Rejoining"); the bound is
     * generous for a loaded machine, and the time measured is printed.
     */
    @Test
    void shouldBringAKilledBftVerifierBackWithinSecondsWithoutAViewChange(TestInfo test) throws Exception {
        try (ReplicaProcesses cluster = ReplicaProcesses.startQuorum(workDir(test), "bft")) {
            ClosedLoopLoad load = ClosedLoopLoad.start(cluster.config(), 6_000, 8, OBJECTS);
            ClosedLoopLoad.Result result;
            try {
                load.awaitAcknowledged(300, PROGRESS_LIMIT);
                cluster.kill(3);
                load.awaitAcknowledged(load.acknowledged() + 300, PROGRESS_LIMIT);
                long restartedAt = System.nanoTime();
                cluster.restartJoining(3);
                io.eve.ReplicaStatus first = cluster.awaitFullStatus(3, status -> true, PROGRESS_LIMIT);
                long answeredAt = System.nanoTime();
                io.eve.ReplicaStatus joined =
                        cluster.awaitFullStatus(3, status -> status.role() == Replica.Role.VERIFIER, PROGRESS_LIMIT);
                System.out.printf(
                        "rejoin: bft verifier-only process first answered as %s %d ms after the restart (JVM start),"
                                + " back as %s %d ms later, view %d%n",
                        first.role(),
                        (answeredAt - restartedAt) / 1_000_000,
                        joined.role(),
                        (System.nanoTime() - answeredAt) / 1_000_000,
                        joined.view());
                long verified = joined.verifiedSeq();
                load.awaitAcknowledged(load.acknowledged() + 300, PROGRESS_LIMIT);
                assertThat(cluster.fullStatus(3).orElseThrow().verifiedSeq())
                        .as("batches the rejoined verifier committed since")
                        .isGreaterThan(verified);
            } finally {
                result = load.stop();
            }
            assertCorrect(result);
            cluster.awaitSameState(1, AGREEMENT_LIMIT, 0, 1, 2);
            for (int node = 0; node < 4; node++) {
                assertThat(cluster.fullStatus(node).orElseThrow().view())
                        .as("view of %d", node)
                        .isZero();
            }
        }
    }

    /**
     * {@code u = 2} as deployed: five crash replica JVMs ({@code quorum.u=2}); two that are not the primary are
     * SIGKILLed at once under load, the other three go on, and both are restarted with {@code --join} together.
     * Each answers the other's join query as a verifier that is recovering itself (docs/quorum.md, "Two
     * joiners at once"), both catch up by transfer, and no acknowledged write is lost. With extra protection on
     * (the crash profile's default) the kills cost a view change (the mode waits for all five tokens; the first
     * run took views 1 and 2, view 1's leader being dead), and the joiners come back through it: 15.7 to 17.9 s
     * after their JVMs started in three runs, in view 2 (in one CI run view 3, whose primary was a joiner).
     */
    @Test
    void shouldKeepEveryAcknowledgedWriteWhenTwoOfFiveCrashReplicasAreKilledTogetherAndRejoin(TestInfo test)
            throws Exception {
        try (ReplicaProcesses cluster =
                ReplicaProcesses.startQuorum(workDir(test), "crash", 5, List.of("quorum.u=2"), List.of())) {
            ClosedLoopLoad load = ClosedLoopLoad.start(cluster.config(), 7_000, 8, OBJECTS);
            ClosedLoopLoad.Result result;
            try {
                load.awaitAcknowledged(300, PROGRESS_LIMIT);
                int primary = cluster.primary(PROGRESS_LIMIT);
                int first = (primary + 1) % 5;
                int second = (primary + 3) % 5;
                cluster.kill(first);
                cluster.kill(second);
                load.awaitAcknowledged(load.acknowledged() + 300, RECOVERY_LIMIT);
                long restartedAt = System.nanoTime();
                cluster.restartJoining(first);
                cluster.restartJoining(second);
                for (int node : new int[] {first, second}) {
                    // The view change the kills caused may still be under way: RECOVERY_LIMIT, not AGREEMENT_LIMIT.
                    // Back in service: a backup, or the primary if the view change made it one (seen in CI).
                    io.eve.ReplicaStatus back = cluster.awaitFullStatus(
                            node,
                            status -> status.role() == Replica.Role.BACKUP || status.role() == Replica.Role.PRIMARY,
                            RECOVERY_LIMIT);
                    System.out.printf(
                            "rejoin, u = 2: node %d back as %s %d ms after the restart (JVM start), view %d%n",
                            node, back.role(), (System.nanoTime() - restartedAt) / 1_000_000, back.view());
                }
                load.awaitAcknowledged(load.acknowledged() + 300, PROGRESS_LIMIT);
            } finally {
                result = load.stop();
            }
            assertCorrect(result);
            cluster.awaitSameState(1, AGREEMENT_LIMIT, 0, 1, 2, 3, 4);
        }
    }

    private static void assertCorrect(ClosedLoopLoad.Result result) {
        assertThat(result.wrong()).as("wrong replies: %s", result.problems()).isZero();
        assertThat(result.failed()).as("failed requests: %s", result.problems()).isZero();
    }

    static Path workDir(TestInfo test) throws IOException {
        return Nemesis.workDir(test.getTestMethod().orElseThrow().getName());
    }
}
