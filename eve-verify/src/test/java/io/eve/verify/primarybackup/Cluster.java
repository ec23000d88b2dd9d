package io.eve.verify.primarybackup;

import io.eve.client.ClientConfig;
import io.eve.client.EveClient;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.transport.LocalNetwork;
import io.eve.verify.runtime.ReplicaRuntime;
import io.eve.verify.runtime.ReplicaRuntimeBuilder;
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
        this(mixer, overlap, null);
    }

    /**
     * @param storage node i keeps its storage in {@code storage/node-i} (a checkpoint every 100 batches), or null:
     *     nothing on disk
     */
    Cluster(io.eve.mixer.Mixer mixer, boolean overlap, java.nio.file.Path storage) {
        this(mixer, overlap, storage, true, false, false);
    }

    private Cluster(
            io.eve.mixer.Mixer mixer,
            boolean overlap,
            java.nio.file.Path storage,
            boolean startAll,
            boolean production,
            boolean fenced) {
        this.mixer = mixer;
        this.overlap = overlap;
        this.storage = storage;
        this.production = production;
        this.fenced = fenced;
        if (fenced) {
            witness = ReplicaRuntime.builder()
                    .roles(WitnessRoles.of(WITNESS, config(FIRST), Optional.empty()))
                    .transport(network.join(WITNESS))
                    .onFailure(failures::add)
                    .build();
            witness.start();
        }
        for (int node = 0; node < 2 && startAll; node++) {
            start(node, false);
        }
    }

    /** The pair fenced by a witness (node {@link #WITNESS}, without a disk). */
    static Cluster withWitness() {
        return new Cluster(KeyConflictMixer.unbounded(), true, null, true, false, true);
    }

    /** Replicas with durable storage under {@code storage}. */
    static Cluster durable(java.nio.file.Path storage) {
        return new Cluster(KeyConflictMixer.unbounded(), true, storage);
    }

    /**
     * Replicas with the production settings rather than the tests': {@link PrimaryBackupConfig#of}'s batching
     * and timeouts, and {@link io.eve.storage.StorageConfig#of}'s checkpoint cadence; durable under {@code
     * storage}, or in memory if it is null. For benchmarks.
     */
    static Cluster production(java.nio.file.Path storage) {
        return new Cluster(KeyConflictMixer.unbounded(), true, storage, true, true, false);
    }

    /** A durable cluster whose nodes the test starts itself (a restart of the whole cluster). */
    static Cluster durableStopped(java.nio.file.Path storage) {
        return new Cluster(KeyConflictMixer.unbounded(), true, storage, false, false, false);
    }

    private final java.nio.file.Path storage;
    private final boolean production;

    /** Node {@code node}'s storage settings (only for a durable cluster). */
    io.eve.storage.StorageConfig storageConfig(int node) {
        io.eve.storage.StorageConfig config = io.eve.storage.StorageConfig.of(storage.resolve("node-" + node));
        return production ? config : config.withCheckpoints(100, 16);
    }

    static PrimaryBackupConfig config(int self) {
        return PrimaryBackupConfig.of(FIRST, SECOND, self)
                .withTimeouts(20_000_000L, 1_000_000_000L)
                .withBatching(4, 16, 1_000_000L);
    }

    void start(int node, boolean joining) {
        start(node, joining, -1);
    }

    /**
     * Starts node {@code node}; with {@code resumeView >= 0} (a durable cluster restarted as a whole) as the
     * primary of that view, from what it recovered.
     */
    void start(int node, boolean joining, long resumeView) {
        apps[node] = new CounterApp();
        ReplicaRuntimeBuilder builder = ReplicaRuntime.builder();
        if (storage != null) {
            builder.storage(new io.eve.storage.Storage(storageConfig(node), "node " + node));
        }
        if (resumeView >= 0) {
            builder.resumeAsPrimary(resumeView);
        }
        PrimaryBackupConfig config = production ? PrimaryBackupConfig.of(FIRST, SECOND, node) : config(node);
        if (fenced) {
            config = config.withWitness(WITNESS);
        }
        replicas[node] = builder.roles(PrimaryBackupRoles.of(config, overlap))
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
