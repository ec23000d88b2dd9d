package io.eve.samples.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.samples.cli.ReplicaLaunch;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * The key-value sample as it is deployed: two replica JVMs talking TCP on 127.0.0.1 and client threads in
 * this JVM, each with its own connection. Replicas are killed with SIGKILL, restarted with {@code --join},
 * and attacked with malformed traffic; every test ends with both replicas at the same stable batch with
 * the same state root. Replica output goes to {@code target/process-it/<test>/node-N.log}.
 */
@Timeout(value = 45, unit = TimeUnit.SECONDS)
class PrimaryBackupProcessIT {
    /** The replicas' default store size (ReplicaCommand's {@code --objects}). */
    private static final int OBJECTS = 10_000;

    private static final Duration PROGRESS_LIMIT = Duration.ofSeconds(15);
    private static final Duration AGREEMENT_LIMIT = Duration.ofSeconds(20);

    @Test
    void shouldAcknowledgeEveryUpdateOfConcurrentClientsAndAgreeOnTheState(TestInfo test) throws Exception {
        try (ReplicaProcesses cluster = ReplicaProcesses.start(workDir(test))) {
            ClosedLoopLoad load = ClosedLoopLoad.start(cluster.config(), 1_000, 8, OBJECTS);
            ClosedLoopLoad.Result result;
            try {
                Thread.sleep(4_000); // the length of the workload, not a wait for a condition
            } finally {
                result = load.stop();
            }

            assertCorrect(result);
            assertThat(result.acknowledged()).as("updates acknowledged in 4 s").isGreaterThan(200);
            assertSameState(cluster, 1);
            assertThat(cluster.status(0).orElseThrow().primary()).isTrue();
        }
    }

    @Test
    void shouldKeepEveryAcknowledgedWriteWhenThePrimaryIsKilledUnderLoad(TestInfo test) throws Exception {
        try (ReplicaProcesses cluster = ReplicaProcesses.start(workDir(test))) {
            ClosedLoopLoad load = ClosedLoopLoad.start(cluster.config(), 2_000, 8, OBJECTS);
            ClosedLoopLoad.Result result;
            try {
                load.awaitAcknowledged(300, PROGRESS_LIMIT);
                int primary = cluster.primary(PROGRESS_LIMIT);
                int backup = 1 - primary;
                long viewBefore = cluster.status(primary).orElseThrow().view();
                cluster.kill(primary);
                long atKill = load.acknowledged();
                load.awaitAcknowledged(atKill + 300, PROGRESS_LIMIT);
                cluster.awaitStatus(backup, status -> status.primary() && status.view() > viewBefore, PROGRESS_LIMIT);

                cluster.restartJoining(primary);
                cluster.awaitStatus(primary, status -> status.transfers() > 0, AGREEMENT_LIMIT);
                load.awaitAcknowledged(load.acknowledged() + 300, PROGRESS_LIMIT);
            } finally {
                result = load.stop();
            }

            assertCorrect(result);
            assertSameState(cluster, 1);
        }
    }

    @Test
    void shouldGoOnAloneWhenTheBackupIsKilledAndTakeItBackWhenItRejoins(TestInfo test) throws Exception {
        try (ReplicaProcesses cluster = ReplicaProcesses.start(workDir(test))) {
            ClosedLoopLoad load = ClosedLoopLoad.start(cluster.config(), 3_000, 8, OBJECTS);
            ClosedLoopLoad.Result result;
            int primary;
            long view;
            try {
                load.awaitAcknowledged(300, PROGRESS_LIMIT);
                primary = cluster.primary(PROGRESS_LIMIT);
                int backup = 1 - primary;
                view = cluster.status(primary).orElseThrow().view();
                cluster.kill(backup);
                long atKill = load.acknowledged();
                load.awaitAcknowledged(atKill + 300, PROGRESS_LIMIT);
                assertThat(cluster.status(primary).orElseThrow().primary()).isTrue();

                cluster.restartJoining(backup);
                cluster.awaitStatus(backup, status -> status.transfers() > 0, AGREEMENT_LIMIT);
                load.awaitAcknowledged(load.acknowledged() + 300, PROGRESS_LIMIT);
            } finally {
                result = load.stop();
            }

            assertCorrect(result);
            assertSameState(cluster, 1);
            assertThat(cluster.status(primary).orElseThrow().view())
                    .as("the primary kept its view")
                    .isEqualTo(view);
        }
    }

    @Test
    void shouldCloseHostileConnectionsWithoutDisturbingClients(TestInfo test) throws Exception {
        try (ReplicaProcesses cluster = ReplicaProcesses.start(workDir(test))) {
            ClosedLoopLoad load = ClosedLoopLoad.start(cluster.config(), 4_000, 4, OBJECTS);
            ClosedLoopLoad.Result result;
            try (HostilePeer attacker = new HostilePeer(cluster.transportAddress(0))) {
                load.awaitAcknowledged(200, PROGRESS_LIMIT);
                long beforeAttack = load.acknowledged();

                attacker.openHalfOpen(20);
                assertThat(attacker.sendGarbage(7)).as("closed after garbage").isTrue();
                assertThat(attacker.sendGiantFrameHeader(900_001))
                        .as("closed after a giant frame length")
                        .isTrue();
                assertThat(attacker.sendBadChecksum(900_002))
                        .as("closed after a bad checksum")
                        .isTrue();

                load.awaitAcknowledged(beforeAttack + 300, PROGRESS_LIMIT);
            } finally {
                result = load.stop();
            }

            assertCorrect(result);
            assertSameState(cluster, 1);
            assertThat(Files.readString(cluster.log(0), StandardCharsets.UTF_8))
                    .contains("sent a bad handshake")
                    .contains("closing the connection from");
        }
    }

    private static void assertCorrect(ClosedLoopLoad.Result result) {
        assertThat(result.wrong()).as("wrong replies: %s", result.problems()).isZero();
        assertThat(result.failed()).as("failed requests: %s", result.problems()).isZero();
    }

    private static void assertSameState(ReplicaProcesses cluster, long atLeast) throws InterruptedException {
        ReplicaLaunch.Status[] both = cluster.awaitSameStableSeq(atLeast, AGREEMENT_LIMIT);
        assertThat(both[1].stableRoot())
                .as("state root of node 1 at batch %d", both[1].stableSeq())
                .isEqualTo(both[0].stableRoot());
    }

    private static Path workDir(TestInfo test) throws IOException {
        String name = test.getTestMethod().orElseThrow().getName();
        Path dir = Path.of("target", "process-it", name);
        try (var old = Files.list(Files.createDirectories(dir))) {
            for (Path file : (Iterable<Path>) old::iterator) {
                Files.delete(file);
            }
        }
        return dir;
    }
}
