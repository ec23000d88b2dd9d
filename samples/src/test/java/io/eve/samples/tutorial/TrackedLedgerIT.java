package io.eve.samples.tutorial;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Application;
import io.eve.Reply;
import io.eve.client.ApplicationErrorException;
import io.eve.client.ClientConfig;
import io.eve.client.EveClient;
import io.eve.client.ServiceClient;
import io.eve.execution.Token;
import io.eve.merkle.Digest;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.protocol.Message;
import io.eve.transport.LocalNetwork;
import io.eve.verify.primarybackup.PrimaryBackupConfig;
import io.eve.verify.primarybackup.PrimaryBackupRoles;
import io.eve.verify.runtime.ReplicaRuntime;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The forgotten-write scenarios of issue 22, in one JVM: the tutorial bank has no {@code modify} call
 * left (the build step tracks its writes), and a primary-backup pair runs it under deposits and
 * transfers with no fault, then through a rollback (a corrupted token), a primary crash and the old
 * primary's rejoin by state transfer. The money is conserved: the total is the opening balances plus the
 * acknowledged deposits, and both replicas end on the same root. The same runs with a ledger that
 * forgets {@code modify} in debug mode ({@link LeakyLedger}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TrackedLedgerIT {
    private static final int ACCOUNTS = 16;
    private static final long OPENING = 1_000;
    private static final int CLIENTS = 4;

    private final LocalNetwork network = new LocalNetwork();
    private final ReplicaRuntime[] replicas = new ReplicaRuntime[2];
    private final List<Throwable> failures = new CopyOnWriteArrayList<>();
    private final AtomicBoolean corruptNextToken = new AtomicBoolean();
    private final AtomicLong deposits = new AtomicLong();
    private final AtomicLong deposited = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean(true);

    /** One ledger application and how a client deposits into it and reads its total. */
    private interface Ledger {
        Application newReplica();

        /** Deposits or transfers at random; returns the amount deposited (0 for a transfer). */
        long work(EveClient client, SplittableRandom random);

        long total(EveClient client);
    }

    /** The tutorial's bank: enhanced, no modify calls. */
    private static final class TrackedBank implements Ledger {
        @Override
        public Application newReplica() {
            return new Bank(ACCOUNTS, OPENING);
        }

        @Override
        public long work(EveClient client, SplittableRandom random) {
            ServiceClient<BankRequest, Long> bank = new ServiceClient<>(client, BankRequest.CODEC);
            String account = "a" + random.nextInt(ACCOUNTS);
            long amount = 1 + random.nextInt(20);
            try {
                if (random.nextBoolean()) {
                    bank.invoke(new BankRequest.Deposit(account, amount));
                    return amount;
                }
                bank.invoke(new BankRequest.Transfer(account, "a" + random.nextInt(ACCOUNTS), amount * 10));
            } catch (ApplicationErrorException e) {
                if (!e.code().equals(Bank.INSUFFICIENT_FUNDS)) {
                    throw e;
                }
            }
            return 0;
        }

        @Override
        public long total(EveClient client) {
            return new ServiceClient<>(client, BankRequest.CODEC).invoke(new BankRequest.Total());
        }
    }

    /** The ledger that forgets modify, in manual tracking with debug mode on. */
    private static final class Leaky implements Ledger {
        @Override
        public Application newReplica() {
            return new LeakyLedger(ACCOUNTS, OPENING);
        }

        @Override
        public long work(EveClient client, SplittableRandom random) {
            long amount = 1 + random.nextInt(20);
            Reply reply = client.call(LeakyLedger.deposit(random.nextInt(ACCOUNTS), amount));
            if (reply.error()) {
                throw new IllegalStateException("a deposit failed: " + new String(reply.payload(), UTF_8));
            }
            return amount;
        }

        @Override
        public long total(EveClient client) {
            return ByteBuffer.wrap(client.call(LeakyLedger.total()).payload()).getLong();
        }
    }

    private Ledger ledger;

    @Test
    void shouldConserveMoneyThroughRollbackCrashAndRejoin() throws Exception {
        ledger = new TrackedBank();
        runScenarios();
    }

    /**
     * Issue 22's debug mode: writes without modify in an unenhanced class are found at seal, the batch
     * runs again sequentially and the cluster keeps serving, with the money conserved.
     */
    @Test
    void shouldKeepServingAndConserveMoneyWhenDebugModeFindsWritesWithoutModify() throws Exception {
        ledger = new Leaky();
        runScenarios();
        assertThat(untrackedRetries)
                .as("batches run again after untracked writes")
                .isPositive();
    }

    private long untrackedRetries;

    private void runScenarios() throws Exception {
        network.setFirewall(this::inject);
        start(0, false);
        start(1, false);
        List<Thread> clients = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            int id = 1000 + c;
            Thread thread = new Thread(() -> bank(id), "banker-" + id);
            thread.setDaemon(true);
            thread.start();
            clients.add(thread);
        }
        try {
            awaitMoreDeposits(200);
            corruptNextToken.set(true);
            awaitMoreDeposits(200);
            assertThat(replicas[0].metrics().rollbacks() + replicas[1].metrics().rollbacks())
                    .as("the corrupted token made the pair roll back")
                    .isPositive();
            replicas[0].close();
            awaitMoreDeposits(200);
            start(0, true);
            awaitMoreDeposits(200);
        } finally {
            running.set(false);
            for (Thread client : clients) {
                client.join(30_000);
            }
        }
        assertThat(failures).isEmpty();
        try (EveClient client = new EveClient(network.join(999), config())) {
            long total = ledger.total(client);
            assertThat(total)
                    .as("opening balances plus %d acknowledged deposits", deposits.get())
                    .isEqualTo(ACCOUNTS * OPENING + deposited.get());
        }
        awaitSameState();
        untrackedRetries =
                replicas[0].stage().untrackedRetries() + replicas[1].stage().untrackedRetries();
        for (ReplicaRuntime replica : replicas) {
            replica.close();
        }
        network.close();
    }

    private void start(int node, boolean joining) {
        replicas[node] = ReplicaRuntime.builder()
                .roles(PrimaryBackupRoles.of(
                        PrimaryBackupConfig.of(0, 1, node).withTimeouts(50_000_000L, 1_000_000_000L)))
                .transport(network.join(node))
                .application(ledger.newReplica())
                .mixer(KeyConflictMixer.unbounded())
                .executorThreads(4)
                .joining(joining)
                .onFailure(failures::add)
                .build();
        replicas[node].start();
    }

    private static ClientConfig config() {
        return ClientConfig.of(0, 1).withTimeouts(Duration.ofMillis(300), Duration.ofSeconds(60));
    }

    /** Corrupts one token on its way to the primary when asked. */
    private Message inject(int from, int to, Message message) {
        if (message instanceof Message.BatchToken token && corruptNextToken.compareAndSet(true, false)) {
            Token honest = token.token();
            Token forged = Token.of(honest.seq(), Digest.ZERO, honest.replyDigest(), honest.previous());
            return new Message.BatchToken(token.view(), token.epoch(), forged);
        }
        return message;
    }

    /** A closed-loop client: deposits and transfers at random; every deposit must be acknowledged. */
    private void bank(int id) {
        SplittableRandom random = new SplittableRandom(id);
        try (EveClient client = new EveClient(network.join(id), config())) {
            while (running.get()) {
                long amount = ledger.work(client, random);
                if (amount > 0) {
                    deposited.addAndGet(amount);
                    deposits.incrementAndGet();
                }
            }
        } catch (RuntimeException e) {
            failures.add(e); // an unacknowledged deposit would leave the total uncertain
        }
    }

    private void awaitMoreDeposits(long more) throws InterruptedException {
        long target = deposits.get() + more;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (deposits.get() < target) {
            if (System.nanoTime() - deadline > 0 || !failures.isEmpty()) {
                throw new AssertionError(
                        "only " + deposits.get() + " of " + target + " deposits acknowledged; failures " + failures);
            }
            Thread.sleep(20);
        }
    }

    private void awaitSameState() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        ReplicaRuntime.StateSummary first = replicas[1].summary();
        ReplicaRuntime.StateSummary second = replicas[0].summary();
        while (!first.equals(second) && System.nanoTime() - deadline < 0) {
            Thread.sleep(50);
            first = replicas[1].summary();
            second = replicas[0].summary();
        }
        assertThat(second).as("the rejoined replica's stable state").isEqualTo(first);
    }
}
