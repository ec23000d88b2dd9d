package io.eve.verify.primarybackup;

import static io.eve.verify.primarybackup.Cluster.FIRST;
import static io.eve.verify.primarybackup.Cluster.SECOND;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.Application;
import io.eve.ApplicationException;
import io.eve.ExecutionContext;
import io.eve.Reply;
import io.eve.RequestCodec;
import io.eve.TypedApplication;
import io.eve.client.ApplicationErrorException;
import io.eve.client.ClientConfig;
import io.eve.client.EveClient;
import io.eve.client.ServiceClient;
import io.eve.merkle.VersionedState;
import io.eve.merkle.graph.ObjectGraphState;
import io.eve.merkle.graph.ReplicatedMap;
import io.eve.mixer.ConflictKeys;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.transport.LocalNetwork;
import io.eve.verify.runtime.ReplicaRuntime;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A typed application on two primary-backup replicas, called through a {@link ServiceClient}: replies
 * decode to the application's type, an {@link ApplicationException}'s code and detail reach the caller,
 * other exceptions and undecodable payloads arrive with Eve's codes, and the replicas never diverge over
 * an error reply (their tokens cover the replies).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TypedServiceIT {
    /** A request to the accounts: deposit, withdraw, balance (read-only) or explode. */
    record Command(String operation, long account, long amount) {}

    static final RequestCodec<Command, Long> CODEC = RequestCodec.of(
            command -> (command.operation() + ":" + command.account() + ":" + command.amount())
                    .getBytes(StandardCharsets.UTF_8),
            TypedServiceIT::decode,
            balance -> Long.toString(balance).getBytes(StandardCharsets.UTF_8),
            payload -> Long.parseLong(new String(payload, StandardCharsets.UTF_8)));

    private static Command decode(byte[] payload) {
        String[] parts = new String(payload, StandardCharsets.UTF_8).split(":");
        if (parts.length != 3) {
            throw new IllegalArgumentException("expected operation:account:amount, got " + parts.length + " fields");
        }
        return new Command(parts[0], Long.parseLong(parts[1]), Long.parseLong(parts[2]));
    }

    /** Accounts in a replicated map; a withdrawal beyond the balance answers "insufficient-funds". */
    static final class Accounts implements TypedApplication<Command, Long> {
        final ObjectGraphState state = ObjectGraphState.builder().build();
        final ReplicatedMap<Long, Long> balances = new ReplicatedMap<>();

        Accounts() {
            state.setRoot("balances", balances);
        }

        @Override
        public VersionedState state() {
            return state;
        }

        @Override
        public ConflictKeys conflictKeys(Command command) {
            return command.operation().equals("balance")
                    ? ConflictKeys.reading(command.account())
                    : ConflictKeys.writing(command.account());
        }

        @Override
        public Long execute(Command command, ExecutionContext context) {
            Long held = balances.get(command.account());
            long balance = held == null ? 0 : held;
            switch (command.operation()) {
                case "deposit" -> balances.put(command.account(), balance + command.amount());
                case "withdraw" -> {
                    if (command.amount() > balance) {
                        throw new ApplicationException(
                                "insufficient-funds",
                                "account " + command.account() + " holds " + balance + ", " + command.amount()
                                        + " requested",
                                ByteBuffer.allocate(Long.BYTES).putLong(balance).array());
                    }
                    balances.put(command.account(), balance - command.amount());
                }
                case "balance" -> {
                    return balance;
                }
                default -> throw new IllegalStateException("operation " + command.operation() + " exploded");
            }
            return balances.get(command.account());
        }
    }

    private final LocalNetwork network = new LocalNetwork();
    private final ReplicaRuntime[] replicas = new ReplicaRuntime[2];
    private final List<Throwable> failures = new CopyOnWriteArrayList<>();
    private final List<EveClient> clients = new ArrayList<>();

    private void start() {
        for (int node = FIRST; node <= SECOND; node++) {
            replicas[node] = ReplicaRuntime.builder()
                    .roles(PrimaryBackupRoles.of(Cluster.config(node)))
                    .transport(network.join(node))
                    .application(Application.typed(CODEC, new Accounts()))
                    .mixer(KeyConflictMixer.unbounded())
                    .executorThreads(4)
                    .onFailure(failures::add)
                    .build();
            replicas[node].start();
        }
    }

    private EveClient client(int id) {
        EveClient client = new EveClient(
                network.join(id),
                ClientConfig.of(FIRST, SECOND).withTimeouts(Duration.ofMillis(300), Duration.ofSeconds(30)));
        clients.add(client);
        return client;
    }

    @AfterEach
    void close() {
        clients.forEach(EveClient::close);
        for (ReplicaRuntime replica : replicas) {
            if (replica != null) {
                replica.close();
            }
        }
        network.close();
    }

    @Test
    void shouldCarryTheApplicationsErrorCodeToTheServiceClient() {
        start();
        ServiceClient<Command, Long> accounts = new ServiceClient<>(client(100), CODEC);
        assertThat(accounts.invoke(new Command("deposit", 1, 10))).isEqualTo(10);
        assertThatThrownBy(() -> accounts.invoke(new Command("withdraw", 1, 30)))
                .isInstanceOfSatisfying(ApplicationErrorException.class, e -> {
                    assertThat(e.code()).isEqualTo("insufficient-funds");
                    assertThat(e.message()).isEqualTo("account 1 holds 10, 30 requested");
                    assertThat(ByteBuffer.wrap(e.detail()).getLong()).isEqualTo(10);
                });
        assertThat(accounts.invoke(new Command("withdraw", 1, 4))).isEqualTo(6);
        assertThat(failures).isEmpty();
    }

    @Test
    void shouldAnswerOtherExceptionsAndUndecodablePayloadsWithEvesCodes() throws Exception {
        start();
        EveClient client = client(100);
        ServiceClient<Command, Long> accounts = new ServiceClient<>(client, CODEC);
        assertThatThrownBy(() -> accounts.invoke(new Command("explode", 1, 0)))
                .isInstanceOfSatisfying(ApplicationErrorException.class, e -> {
                    assertThat(e.code()).isEqualTo(ApplicationException.UNEXPECTED);
                    assertThat(e.error().exceptionClass()).isEqualTo(IllegalStateException.class.getName());
                    assertThat(e.message()).isEqualTo("operation explode exploded");
                });
        Reply garbled = client.call("deposit:1".getBytes(StandardCharsets.UTF_8));
        assertThat(garbled.errorCode()).isEqualTo(ApplicationException.UNDECODABLE);
        assertThat(garbled.errorMessage())
                .isEqualTo("a request payload of 9 bytes could not be decoded: java.lang.IllegalArgumentException:"
                        + " expected operation:account:amount, got 2 fields");
        assertThat(accounts.read(new Command("balance", 1, 0)).get(20, TimeUnit.SECONDS))
                .isZero();
    }

    @Test
    void shouldCommitIdenticalErrorRepliesOnBothReplicas() throws Exception {
        start();
        List<CompletableFuture<Long>> calls = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            ServiceClient<Command, Long> accounts = new ServiceClient<>(client(100 + c), CODEC);
            for (int i = 0; i < 30; i++) {
                String operation = i % 3 == 0 ? "deposit" : i % 3 == 1 ? "withdraw" : "explode";
                calls.add(accounts.call(new Command(operation, i % 5, 1 + i % 4)));
            }
        }
        int errors = 0;
        for (CompletableFuture<Long> call : calls) {
            try {
                call.get(20, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(ApplicationErrorException.class);
                errors++;
            }
        }
        assertThat(errors).as("every explode and some withdrawals").isGreaterThanOrEqualTo(40);
        long seq = replicas[FIRST].committed();
        Cluster.await("the backup commits batch " + seq, () -> replicas[SECOND].committed() >= seq);
        assertThat(replicas[FIRST].metrics().rollbacks()
                        + replicas[SECOND].metrics().rollbacks())
                .as("tokens, which cover the replies, always matched")
                .isZero();
        assertThat(replicas[SECOND].stage().state().rootAt(seq))
                .isEqualTo(replicas[FIRST].stage().state().rootAt(seq));
        assertThat(failures).isEmpty();
    }
}
