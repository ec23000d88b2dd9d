package io.eve.samples.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.client.ApplicationErrorException;
import io.eve.client.EveClient;
import io.eve.client.ServiceClient;
import io.eve.config.ClusterConfig;
import io.eve.samples.tutorial.Bank;
import io.eve.samples.tutorial.BankRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The tutorial's bank (docs/tutorial.md) deployed as the tutorial says, through the launcher ({@code ./eve
 * replica --app io.eve.samples.tutorial.Bank}) as separate JVMs in primary-backup and crash: clients deposit
 * and transfer while the primary is SIGKILLed. Every acknowledged deposit is in the audited total (transfers
 * move money, never make or lose it), a transfer to a missing account fails with its code and leaves the
 * payer's balance as it was, and after the killed replica rejoins all replicas agree on their state roots.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class TutorialProcessIT {
    private static final int ACCOUNTS = 32;
    private static final long INITIAL = 1_000;
    private static final int CLIENTS = 4;
    private static final Duration PROGRESS_LIMIT = Duration.ofSeconds(15);
    private static final Duration RECOVERY_LIMIT = Duration.ofSeconds(40);

    @ParameterizedTest
    @ValueSource(strings = {"primary-backup", "crash"})
    void shouldKeepEveryAcknowledgedDepositWhenThePrimaryIsKilled(String profile) throws Exception {
        List<String> settings = List.of("app.accounts=" + ACCOUNTS, "app.initial-balance=" + INITIAL);
        List<String> app = List.of("--app", Bank.class.getName());
        Path dir = java.nio.file.Files.createTempDirectory(
                java.nio.file.Files.createDirectories(Path.of("target", "process-it")), "tutorial-" + profile + "-");
        try (ReplicaProcesses cluster = profile.equals("crash")
                ? ReplicaProcesses.startQuorum(dir, profile, settings, app)
                : ReplicaProcesses.start(dir, settings, app)) {
            ClusterConfig config = ClusterConfig.load(cluster.config());
            Bankers bankers = new Bankers(config);
            int primary;
            try {
                bankers.awaitDeposits(200, PROGRESS_LIMIT);
                primary = cluster.primary(PROGRESS_LIMIT);
                cluster.kill(primary);
                bankers.awaitDeposits(bankers.deposits.get() + 200, RECOVERY_LIMIT);
            } finally {
                bankers.stop();
            }
            assertThat(bankers.failures)
                    .as("requests that failed for another reason than the bank's")
                    .isEmpty();
            try (EveClient auditor = EveClient.connect(config)) {
                ServiceClient<BankRequest, Long> bank = new ServiceClient<>(auditor, BankRequest.CODEC);
                assertThat(bank.invoke(new BankRequest.Total()))
                        .as("the total holds the opening balances and every acknowledged deposit, nothing else")
                        .isEqualTo(ACCOUNTS * INITIAL + bankers.deposited.get());
                long before = bank.invoke(new BankRequest.Balance("a0"));
                assertThatThrownBy(() -> bank.invoke(new BankRequest.Transfer("a0", "nobody", 1)))
                        .isInstanceOf(ApplicationErrorException.class)
                        .extracting(e -> ((ApplicationErrorException) e).code())
                        .isEqualTo(Bank.NO_SUCH_ACCOUNT);
                assertThat(bank.invoke(new BankRequest.Balance("a0")))
                        .as("the debit made before the transfer failed was undone")
                        .isEqualTo(before);
            }
            cluster.restartJoining(primary);
            cluster.awaitStatus(primary, status -> status.transfers() > 0, RECOVERY_LIMIT);
            cluster.awaitSameState(1, RECOVERY_LIMIT, profile.equals("crash") ? new int[] {0, 1, 2} : new int[] {0, 1});
        }
    }

    /** Closed-loop clients, each its own EveClient, depositing and transferring at random. */
    private static final class Bankers {
        final AtomicLong deposits = new AtomicLong();
        final AtomicLong deposited = new AtomicLong();
        final List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final List<Thread> threads = new ArrayList<>();
        private final List<EveClient> clients = new ArrayList<>();

        Bankers(ClusterConfig config) {
            for (int c = 0; c < CLIENTS; c++) {
                EveClient client = EveClient.connect(config);
                clients.add(client);
                SplittableRandom random = new SplittableRandom(c);
                Thread thread = new Thread(() -> work(client, random), "banker-" + c);
                thread.setDaemon(true);
                threads.add(thread);
                thread.start();
            }
        }

        private void work(EveClient client, SplittableRandom random) {
            BankLoad.run(client, random, ACCOUNTS, running, deposited, deposits, failures);
        }

        void awaitDeposits(long count, Duration limit) throws InterruptedException {
            long deadline = System.nanoTime() + limit.toNanos();
            while (deposits.get() < count) {
                if (System.nanoTime() - deadline > 0 || !failures.isEmpty()) {
                    throw new AssertionError(
                            "only " + deposits.get() + " of " + count + " deposits acknowledged; failures " + failures);
                }
                Thread.sleep(20);
            }
        }

        void stop() throws InterruptedException {
            running.set(false);
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            }
            clients.forEach(EveClient::close);
        }
    }
}
