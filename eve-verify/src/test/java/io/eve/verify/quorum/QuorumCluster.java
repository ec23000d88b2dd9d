package io.eve.verify.quorum;

import io.eve.client.ClientConfig;
import io.eve.client.EveClient;
import io.eve.mixer.Mixer;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.transport.LocalNetwork;
import io.eve.transport.Transport;
import io.eve.transport.wire.FrameCodec;
import io.eve.verify.auth.AuthenticatingTransport;
import io.eve.verify.auth.Authenticator;
import io.eve.verify.auth.Envelopes;
import io.eve.verify.auth.MacKeys;
import io.eve.verify.primarybackup.CounterApp;
import io.eve.verify.runtime.ReplicaRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

/** A crash (3 processes) or bft (4 processes) cluster of {@link CounterApp} over a {@link LocalNetwork}. */
final class QuorumCluster implements AutoCloseable {
    final LocalNetwork network = new LocalNetwork();
    final QuorumConfig base;
    final ReplicaRuntime[] processes;
    final CounterApp[] apps;
    final List<Throwable> failures = new CopyOnWriteArrayList<>();
    private final Mixer mixer;
    private final MacKeys keys;
    private final List<EveClient> clients = new ArrayList<>();

    private final java.nio.file.Path storage;
    private final boolean overlap;

    private QuorumCluster(QuorumConfig base, Mixer mixer) {
        this(base, mixer, null);
    }

    private QuorumCluster(QuorumConfig base, Mixer mixer, java.nio.file.Path storage) {
        this(base, mixer, storage, false);
    }

    private QuorumCluster(QuorumConfig base, Mixer mixer, java.nio.file.Path storage, boolean overlap) {
        this.overlap = overlap;
        this.base = base;
        this.mixer = mixer;
        this.storage = storage;
        this.keys = MacKeys.insecureForTests(7, base.processes());
        int count = base.processes().length;
        this.processes = new ReplicaRuntime[count];
        this.apps = new CounterApp[count];
        for (int node = 0; node < count; node++) {
            start(node, false);
        }
    }

    /** Three processes, each an execution replica and a verifier (u = 1, r = 0). */
    static QuorumCluster crash() {
        return crash(KeyConflictMixer.unbounded());
    }

    /** The crash profile with the extra protection mode set to {@code protection}. */
    static QuorumCluster crash(ExtraProtectionConfig protection) {
        return new QuorumCluster(
                tuned(QuorumConfig.crash(new int[] {0, 1, 2}, 0)).withExtraProtection(protection),
                KeyConflictMixer.unbounded());
    }

    /** A cluster of {@code config}'s shape, in memory, extra protection off. */
    static QuorumCluster inMemory(QuorumConfig config) {
        return new QuorumCluster(
                tuned(config).withExtraProtection(ExtraProtectionConfig.OFF), KeyConflictMixer.unbounded());
    }

    /** The crash profile whose execution replicas overlap consecutive batches (docs/state.md). */
    static QuorumCluster crashWithOverlap() {
        return new QuorumCluster(
                tuned(QuorumConfig.crash(new int[] {0, 1, 2}, 0)), KeyConflictMixer.unbounded(), null, true);
    }

    /** The bft profile whose execution replicas overlap consecutive batches. */
    static QuorumCluster bftWithOverlap() {
        return new QuorumCluster(
                tuned(QuorumConfig.bft(new int[] {0, 1, 2, 3}, 0)), KeyConflictMixer.unbounded(), null, true);
    }

    static QuorumCluster crash(Mixer mixer) {
        return new QuorumCluster(tuned(QuorumConfig.crash(new int[] {0, 1, 2}, 0)), mixer);
    }

    /**
     * A cluster of {@code config}'s shape (extra protection off) whose execution replicas keep durable storage
     * under {@code storage}, one folder per node, a checkpoint every 100 batches.
     */
    static QuorumCluster durable(QuorumConfig config, java.nio.file.Path storage) {
        return new QuorumCluster(
                tuned(config).withExtraProtection(ExtraProtectionConfig.OFF), KeyConflictMixer.unbounded(), storage);
    }

    /** Node {@code node}'s storage settings (only for a durable cluster). */
    io.eve.storage.StorageConfig storageConfig(int node) {
        return io.eve.storage.StorageConfig.of(storage.resolve("node-" + node)).withCheckpoints(100, 16);
    }

    /** Four verifiers, the first three also execution replicas (u = r = 1). */
    static QuorumCluster bft() {
        return new QuorumCluster(tuned(QuorumConfig.bft(new int[] {0, 1, 2, 3}, 0)), KeyConflictMixer.unbounded());
    }

    /** Failure timeouts of a second: the machine may be loaded by other builds. */
    private static QuorumConfig tuned(QuorumConfig config) {
        return config.withTimeouts(1_000_000_000L, 50_000_000L).withBatching(4, 16, 1_000_000L);
    }

    void start(int node, boolean joining) {
        apps[node] = new CounterApp();
        Transport transport = network.join(node);
        Evidence evidence = Evidence.PLAIN;
        if (base.r() >= 1) {
            // bft: every message between the processes authenticated, as the CLI runs it.
            Envelopes envelopes = new Envelopes(new Authenticator(keys, node), new FrameCodec(16 << 20));
            transport = new AuthenticatingTransport(transport, envelopes);
            evidence = envelopes.evidence();
        }
        io.eve.verify.runtime.ReplicaRuntimeBuilder builder = ReplicaRuntime.builder();
        QuorumConfig config = base.withSelf(node);
        VerifierStore verifierStore = null;
        if (storage != null && config.hostsExecution()) {
            builder.storage(new io.eve.storage.Storage(storageConfig(node), "node " + node));
        }
        if (storage != null && config.hostsVerifier()) {
            verifierStore = VerifierStore.open(storage.resolve("node-" + node), node);
            builder.closeWith(verifierStore);
        }
        processes[node] = builder.roles(QuorumRoles.of(config, evidence, verifierStore, new Refusals(), overlap))
                .transport(transport)
                .application(apps[node])
                .mixer(mixer)
                .executorThreads(2)
                .joining(joining)
                .onFailure(failures::add)
                .build();
        processes[node].start();
    }

    void crash(int node) {
        processes[node].close();
    }

    EveClient client(int id) {
        EveClient client = new EveClient(
                network.join(id),
                ClientConfig.of(base.executionReplicas())
                        .withTimeouts(Duration.ofMillis(500), Duration.ofSeconds(40))
                        .withQuorumReplies(base.responseQuorum()));
        clients.add(client);
        return client;
    }

    /** Waits until every execution replica in {@code nodes} committed the same state, and returns its summary. */
    ReplicaRuntime.StateSummary awaitEqualStates(int... nodes) {
        ReplicaRuntime.StateSummary[] seen = new ReplicaRuntime.StateSummary[1];
        await("equal committed states on " + java.util.Arrays.toString(nodes), () -> {
            ReplicaRuntime.StateSummary first = processes[nodes[0]].summary();
            for (int node : nodes) {
                if (!processes[node].summary().equals(first)) {
                    return false;
                }
            }
            seen[0] = first;
            return true;
        });
        return seen[0];
    }

    static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting until " + what, e);
            }
        }
    }

    @Override
    public void close() {
        clients.forEach(EveClient::close);
        for (ReplicaRuntime process : processes) {
            if (process != null) {
                process.close();
            }
        }
        network.close();
    }
}
