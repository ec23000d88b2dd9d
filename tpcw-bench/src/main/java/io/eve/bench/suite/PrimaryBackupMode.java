package io.eve.bench.suite;

import io.eve.client.ClientConfig;
import io.eve.client.EveClient;
import io.eve.mixer.Mixer;
import io.eve.mixer.SequentialMixer;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.mixer.experiment.FalseNegativeMixer;
import io.eve.mixer.experiment.FalsePositiveMixer;
import io.eve.verify.primarybackup.PrimaryBackupConfig;
import io.eve.verify.primarybackup.PrimaryBackupRoles;
import io.eve.verify.runtime.ReplicaRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A primary-backup pair of {@link ReplicaRuntime}s in this JVM, over the in-JVM
 * {@code LocalNetwork} or over Netty on loopback. With the {@link SequentialMixer} and one execution
 * thread it is traditional agree-then-execute replication; with Eve's {@link KeyConflictMixer} (made
 * deliberately wrong by the workload's false-negative and false-positive rates) and T threads it is Eve.
 */
final class PrimaryBackupMode implements Mode {
    private static final int FIRST_CLIENT = 1000;

    private final String id;
    private final String label;
    private final boolean parallel;
    private final boolean netty;
    private final boolean overlap;

    private PrimaryBackupMode(String id, String label, boolean parallel, boolean netty, boolean overlap) {
        this.id = id;
        this.label = label;
        this.parallel = parallel;
        this.netty = netty;
        this.overlap = overlap;
    }

    static PrimaryBackupMode sequentialReplication() {
        return new PrimaryBackupMode("sequential-replication", "sequential replication", false, false, true);
    }

    static PrimaryBackupMode eve() {
        return new PrimaryBackupMode("eve-pb", "Eve primary-backup", true, false, true);
    }

    /** Eve primary-backup without batch overlap: each batch starts when the one before it is sealed. */
    static PrimaryBackupMode eveWithoutOverlap() {
        return new PrimaryBackupMode("eve-pb-no-overlap", "Eve primary-backup, no batch overlap", true, false, false);
    }

    static PrimaryBackupMode eveOverNetty() {
        return new PrimaryBackupMode("eve-pb-netty", "Eve primary-backup (Netty)", true, true, true);
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public int executionReplicas() {
        return 2;
    }

    @Override
    public boolean usesThreads() {
        return parallel;
    }

    static Mixer mixerFor(Workload workload) {
        Mixer mixer = KeyConflictMixer.unbounded();
        if (workload.falseNegativeRate() > 0) {
            mixer = new FalseNegativeMixer(mixer, workload.falseNegativeRate());
        }
        if (workload.falsePositiveRate() > 0) {
            mixer = new FalsePositiveMixer(mixer, workload.falsePositiveRate());
        }
        return mixer;
    }

    @Override
    public Running start(Workload workload, ClientSide clientSide) throws Exception {
        Pair pair = new Pair(netty);
        try {
            for (int node = 0; node < 2; node++) {
                ReplicaRuntime replica = ReplicaRuntime.builder()
                        .roles(PrimaryBackupRoles.of(
                                PrimaryBackupConfig.of(0, 1, node).withBatching(4, workload.maxBatchSize(), 1_000_000L),
                                overlap))
                        .transport(pair.serverTransport(node))
                        .application(workload.newStore())
                        .mixer(parallel ? mixerFor(workload) : new SequentialMixer())
                        .executorThreads(parallel ? workload.threads() : 1)
                        .build();
                replica.start();
                pair.replicas.add(replica);
                pair.noteAddress(node);
            }
            for (int c = 0; c < workload.clients(); c++) {
                int clientId = FIRST_CLIENT + c;
                pair.clients.add(clientSide.build(() -> new EveClient(
                        pair.clientTransport(clientId),
                        ClientConfig.of(0, 1).withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(60)))));
            }
            return pair;
        } catch (Exception | Error e) {
            pair.close();
            throw e;
        }
    }

    /** The running pair and its clients. */
    private static final class Pair extends ReplicatedRunning {
        final List<ReplicaRuntime> replicas = new ArrayList<>();

        Pair(boolean netty) {
            super(netty, FIRST_CLIENT);
        }

        @Override
        public Check check() throws InterruptedException {
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            ReplicaRuntime.StateSummary first = replicas.get(0).summary();
            ReplicaRuntime.StateSummary second = replicas.get(1).summary();
            while (first.stableSeq() != second.stableSeq() && System.nanoTime() < deadline) {
                Thread.sleep(20);
                first = replicas.get(0).summary();
                second = replicas.get(1).summary();
            }
            boolean failed = replicas.stream().anyMatch(ReplicaRuntime::failed);
            boolean sameSeq = first.stableSeq() == second.stableSeq();
            boolean rootsEqual = sameSeq && first.stableRoot().equals(second.stableRoot());
            long rollbacks = replicas.get(0).metrics().rollbacks();
            io.eve.execution.ExecutionStage stage = replicas.get(0).stage();
            String detail = String.format(
                    "stable seq %d/%d, roots %s, rollbacks %d, %s, %d batches planned ahead, overlapped %d requests,"
                            + " %d cross-batch conflicts",
                    first.stableSeq(),
                    second.stableSeq(),
                    rootsEqual ? "equal" : "DIFFERENT",
                    rollbacks,
                    replicas.get(0).metrics().status(),
                    stage.preparedBatches(),
                    stage.overlappedRequests(),
                    stage.overlapConflicts());
            return new Check(!failed && rootsEqual, rootsEqual, rollbacks, detail);
        }

        @Override
        void closeReplicas() {
            replicas.forEach(ReplicaRuntime::close);
        }
    }
}
