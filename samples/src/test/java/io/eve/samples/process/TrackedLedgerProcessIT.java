package io.eve.samples.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.client.EveClient;
import io.eve.client.ServiceClient;
import io.eve.config.ClusterConfig;
import io.eve.samples.cli.ReplicaLaunch;
import io.eve.samples.tutorial.BankRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 22's forgotten-write scenarios as separate processes: a primary-backup pair of replica JVMs runs
 * the tutorial's bank, whose writes carry no {@code modify} call (the build step tracks them), under
 * deposits and transfers, with no fault, then through a rollback (a planted nondeterministic deposit, see
 * {@link DivergingBank}), then through a SIGKILL of the primary and its rejoin by state transfer, then
 * serving again. After each phase the money is conserved (the opening balances plus the acknowledged
 * deposits, no more, no less) and both replicas reach the same state root.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class TrackedLedgerProcessIT {
    private static final int ACCOUNTS = 32;
    private static final long OPENING = 1_000;
    private static final int CLIENTS = 4;
    private static final int DEPOSITS_PER_PHASE = 150;
    private static final Duration PROGRESS_LIMIT = Duration.ofSeconds(40);
    private static final Duration RECOVERY_LIMIT = Duration.ofSeconds(60);

    private final AtomicLong deposited = new AtomicLong();

    @Test
    void shouldConserveMoneyAndAgreeOnRootsThroughRollbackCrashAndRejoin() throws Exception {
        Path dir =
                Files.createTempDirectory(Files.createDirectories(Path.of("target", "process-it")), "tracked-ledger-");
        List<String> settings = List.of("app.accounts=" + ACCOUNTS, "app.initial-balance=" + OPENING);
        try (ReplicaProcesses cluster =
                ReplicaProcesses.start(dir, settings, List.of("--app", DivergingBank.class.getName()))) {
            ClusterConfig config = ClusterConfig.load(cluster.config());

            // No fault.
            runBankers(config, DEPOSITS_PER_PHASE, () -> {});
            long seq = audit(config, cluster, 1, "after the fault-free phase");

            // A rollback: the marker deposit diverges once on each replica, the batch rolls back and runs again.
            long rollbacksBefore = rollbacks(cluster);
            runBankers(config, DEPOSITS_PER_PHASE, () -> {
                try (EveClient marker = EveClient.connect(config)) {
                    new ServiceClient<>(marker, BankRequest.CODEC)
                            .invoke(new BankRequest.Deposit("a0", DivergingBank.MARKER));
                    deposited.addAndGet(DivergingBank.MARKER);
                }
            });
            seq = audit(config, cluster, seq, "after the rollback");
            assertThat(rollbacks(cluster))
                    .as("rollbacks ordered by the diverging deposit")
                    .isGreaterThan(rollbacksBefore);

            // A crash of the primary, the backup takes over, and the old primary rejoins by transfer.
            int primary = cluster.primary(PROGRESS_LIMIT);
            runBankers(config, DEPOSITS_PER_PHASE, () -> cluster.kill(primary));
            try (EveClient auditor = EveClient.connect(config)) {
                assertThat(new ServiceClient<>(auditor, BankRequest.CODEC).invoke(new BankRequest.Total()))
                        .as("the total after the crash")
                        .isEqualTo(ACCOUNTS * OPENING + deposited.get());
            }
            cluster.restartJoining(primary);
            cluster.awaitStatus(primary, status -> status.transfers() > 0, RECOVERY_LIMIT);
            audit(config, cluster, seq, "after the rejoin");

            // Serving on: the rejoined replica holds what the transfer shipped and agrees batch after batch.
            runBankers(config, DEPOSITS_PER_PHASE, () -> {});
            audit(config, cluster, seq, "after serving on with the rejoined replica");
        }
    }

    /** Checks the total and waits for equal roots at a batch no earlier than {@code atLeast}; returns it. */
    private long audit(ClusterConfig config, ReplicaProcesses cluster, long atLeast, String when)
            throws InterruptedException {
        try (EveClient auditor = EveClient.connect(config)) {
            assertThat(new ServiceClient<>(auditor, BankRequest.CODEC).invoke(new BankRequest.Total()))
                    .as("the total %s: the opening balances and every acknowledged deposit, nothing else", when)
                    .isEqualTo(ACCOUNTS * OPENING + deposited.get());
        }
        ReplicaLaunch.Status[] same = cluster.awaitSameState(atLeast, RECOVERY_LIMIT, 0, 1);
        return same[0].stableSeq();
    }

    private static long rollbacks(ReplicaProcesses cluster) throws InterruptedException {
        long total = 0;
        for (int node = 0; node < 2; node++) {
            total += cluster.awaitStatus(node, status -> true, RECOVERY_LIMIT).rollbacks();
        }
        return total;
    }

    /** What a phase does while the bankers work. */
    @FunctionalInterface
    private interface Fault {
        void inject() throws Exception;
    }

    /**
     * Runs closed-loop bankers until {@code deposits} more deposits are acknowledged, injecting
     * {@code fault} once they have started, then stops them; any failure but insufficient funds fails.
     */
    private void runBankers(ClusterConfig config, int deposits, Fault fault) throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong acknowledged = new AtomicLong();
        List<String> failures = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        List<EveClient> clients = new ArrayList<>();
        try {
            for (int c = 0; c < CLIENTS; c++) {
                EveClient client = EveClient.connect(config);
                clients.add(client);
                SplittableRandom random = new SplittableRandom(c * 31L + deposited.get());
                Thread thread = new Thread(() -> bank(client, random, running, acknowledged, failures), "banker-" + c);
                thread.setDaemon(true);
                threads.add(thread);
                thread.start();
            }
            fault.inject();
            long deadline = System.nanoTime() + PROGRESS_LIMIT.toNanos();
            while (acknowledged.get() < deposits) {
                if (System.nanoTime() - deadline > 0 || !failures.isEmpty()) {
                    throw new AssertionError("only " + acknowledged.get() + " of " + deposits
                            + " deposits acknowledged within " + PROGRESS_LIMIT + "; failures " + failures);
                }
                Thread.sleep(20);
            }
        } finally {
            running.set(false);
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            }
            clients.forEach(EveClient::close);
        }
        assertThat(failures)
                .as("requests that failed for another reason than the bank's")
                .isEmpty();
    }

    private void bank(
            EveClient client,
            SplittableRandom random,
            AtomicBoolean running,
            AtomicLong acknowledged,
            List<String> failures) {
        BankLoad.run(client, random, ACCOUNTS, running, deposited, acknowledged, failures);
    }
}
