package io.eve.verify.primarybackup;

import io.eve.client.ClientConfig;
import io.eve.client.EveClient;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.transport.LocalNetwork;
import io.eve.verify.runtime.ReplicaRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

/**
 * Two primary-backup replicas of {@link CounterApp} over a {@link LocalNetwork}, for in-process tests, and
 * optionally their witness.
 */
final class Cluster implements AutoCloseable {
    static final int FIRST = 0;
    static final int SECOND = 1;
    static final int WITNESS = 2;

    final LocalNetwork network = new LocalNetwork();
    final ReplicaRuntime[] replicas = new ReplicaRuntime[2];
    final CounterApp[] apps = new CounterApp[2];
    final PausableClock[] clocks = {new PausableClock(), new PausableClock()};
    private final io.eve.mixer.Mixer mixer;
    private final boolean overlap;
    private final boolean fenced;
    private ReplicaRuntime witness;
    final List<Throwable> failures = new CopyOnWriteArrayList<>();
    private final List<EveClient> clients = new ArrayList<>();

    Cluster() {
        this(KeyConflictMixer.unbounded());
    }

    Cluster(io.eve.mixer.Mixer mixer) {
        this(mixer, true); // the builder's default
    }

    /** @param overlap whether the replicas overlap consecutive batches in their stages */
    Cluster(io.eve.mixer.Mixer mixer, boolean overlap) {
        this(mixer, overlap, false);
    }

    private Cluster(io.eve.mixer.Mixer mixer, boolean overlap, boolean fenced) {
        this.mixer = mixer;
        this.overlap = overlap;
        this.fenced = fenced;
        if (fenced) {
            witness = ReplicaRuntime.builder()
                    .roles(WitnessRoles.of(WITNESS, config(FIRST), Optional.empty()))
                    .transport(network.join(WITNESS))
                    .onFailure(failures::add)
                    .build();
            witness.start();
        }
        for (int node = 0; node < 2; node++) {
            start(node, false);
        }
    }

    /** The pair fenced by a witness (node {@link #WITNESS}, without a disk). */
    static Cluster withWitness() {
        return new Cluster(KeyConflictMixer.unbounded(), true, true);
    }

    static PrimaryBackupConfig config(int self) {
        return PrimaryBackupConfig.of(FIRST, SECOND, self)
                .withTimeouts(20_000_000L, 1_000_000_000L)
                .withBatching(4, 16, 1_000_000L);
    }

    void start(int node, boolean joining) {
        apps[node] = new CounterApp();
        replicas[node] = ReplicaRuntime.builder()
                .roles(PrimaryBackupRoles.of(fenced ? config(node).withWitness(WITNESS) : config(node), overlap))
                .transport(network.join(node))
                .application(apps[node])
                .mixer(mixer)
                .executorThreads(4)
                .joining(joining)
                .onFailure(failures::add)
                .nanoClock(clocks[node])
                .build();
        replicas[node].start();
    }

    /** Whether node {@code node}'s state machine hears its peer. */
    boolean peerAlive(int node) {
        return replicas[node].inspect(
                roles -> ((PrimaryBackupRoles) roles).machine().peerAlive());
    }

    /** The witness's state, or empty while it waits for both replicas' reports (or without a witness). */
    Optional<WitnessState> witnessState() {
        return witness == null
                ? Optional.empty()
                : witness.inspect(roles -> ((WitnessRoles) roles).witness().state());
    }

    /** What each node's state machine says of itself, for failure messages. */
    String describe() {
        StringBuilder text = new StringBuilder();
        for (int node = 0; node < 2; node++) {
            text.append(replicas[node].status()).append("; ");
        }
        return text.append("witness ").append(witnessState()).toString();
    }

    /** Whether node {@code node}'s state machine is the primary. */
    boolean isPrimary(int node) {
        return replicas[node].inspect(
                roles -> ((PrimaryBackupRoles) roles).machine().isPrimary());
    }

    void crash(int node) {
        replicas[node].close();
    }

    EveClient client(int id) {
        EveClient client = new EveClient(
                network.join(id),
                ClientConfig.of(FIRST, SECOND).withTimeouts(Duration.ofMillis(300), Duration.ofSeconds(30)));
        clients.add(client);
        return client;
    }

    static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.onSpinWait();
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting until " + what, e);
            }
        }
    }

    @Override
    public void close() {
        clients.forEach(EveClient::close);
        for (ReplicaRuntime replica : replicas) {
            if (replica != null) {
                replica.close();
            }
        }
        if (witness != null) {
            witness.close();
        }
        network.close();
    }
}
