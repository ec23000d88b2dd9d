package io.eve.bench.suite;

import io.eve.client.ClientConfig;
import io.eve.client.EveClient;
import io.eve.transport.Transport;
import io.eve.transport.wire.FrameCodec;
import io.eve.verify.auth.AuthenticatingTransport;
import io.eve.verify.auth.Authenticator;
import io.eve.verify.auth.Envelopes;
import io.eve.verify.auth.MacKeys;
import io.eve.verify.quorum.Evidence;
import io.eve.verify.quorum.ExtraProtectionConfig;
import io.eve.verify.quorum.QuorumConfig;
import io.eve.verify.quorum.QuorumRoles;
import io.eve.verify.quorum.Refusals;
import io.eve.verify.runtime.ReplicaRuntime;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Eve's quorum profiles in this JVM, over the in-JVM {@code LocalNetwork} or over Netty on loopback (the
 * comparison with Raft, which talks TCP). The crash profile (u = 1, r = 0, Eve §6.1): three
 * {@link ReplicaRuntime}es, each an execution replica and a verifier; clients accept the first reply. The
 * bft profile (u = r = 1): four processes hosting verifiers, the first three also execution replicas,
 * every message between them authenticated with HMAC-SHA256 tag vectors as the CLI runs it (keys fresh
 * for each point); clients accept r + 1 = 2 matching replies.
 */
final class QuorumMode implements Mode {
    private static final int FIRST_CLIENT = 1000;
    private static final int[] CRASH_PROCESSES = {0, 1, 2};
    private static final int[] BFT_PROCESSES = {0, 1, 2, 3};

    private final String id;
    private final String label;
    private final boolean netty;
    private final boolean bft;
    private final ExtraProtectionConfig extraProtection;
    private final boolean signed;
    private final boolean overlap;

    private QuorumMode(String id, String label, boolean netty, boolean bft, ExtraProtectionConfig extraProtection) {
        this(id, label, netty, bft, extraProtection, true, false);
    }

    private QuorumMode(
            String id,
            String label,
            boolean netty,
            boolean bft,
            ExtraProtectionConfig extraProtection,
            boolean signed) {
        this(id, label, netty, bft, extraProtection, signed, false);
    }

    private QuorumMode(
            String id,
            String label,
            boolean netty,
            boolean bft,
            ExtraProtectionConfig extraProtection,
            boolean signed,
            boolean overlap) {
        this.id = id;
        this.label = label;
        this.netty = netty;
        this.bft = bft;
        this.extraProtection = extraProtection;
        this.signed = signed;
        this.overlap = overlap;
    }

    /**
     * The bft profile with MAC evidence only (no Ed25519 signatures), to measure what signed evidence costs
     * (docs/benchmarks.md, "Signed evidence"); not safe against a Byzantine verifier's view changes.
     */
    static QuorumMode bftUnsigned() {
        return new QuorumMode(
                "eve-bft-unsigned",
                "Eve bft profile, unsigned evidence",
                false,
                true,
                ExtraProtectionConfig.OFF,
                false);
    }

    static QuorumMode crash() {
        return new QuorumMode("eve-crash", "Eve crash profile", false, false, ExtraProtectionConfig.DEFAULT);
    }

    /**
     * The crash profile with batch overlap (docs/state.md, "Overlapping batches"), against {@link #crash()} to
     * measure what it brings to the quorum profiles.
     */
    static QuorumMode crashWithOverlap() {
        return new QuorumMode(
                "eve-crash-overlap",
                "Eve crash profile, batch overlap",
                false,
                false,
                ExtraProtectionConfig.DEFAULT,
                true,
                true);
    }

    /** The crash profile without the extra protection mode (Eve §6.3), to measure what the mode costs. */
    static QuorumMode crashWithoutExtraProtection() {
        return new QuorumMode(
                "eve-crash-no-epm", "Eve crash profile, no extra protection", false, false, ExtraProtectionConfig.OFF);
    }

    static QuorumMode crashOverNetty() {
        return new QuorumMode(
                "eve-crash-netty", "Eve crash profile (Netty)", true, false, ExtraProtectionConfig.DEFAULT);
    }

    /** The bft profile (the extra protection mode is for r = 0 only). */
    static QuorumMode bft() {
        return new QuorumMode("eve-bft", "Eve bft profile", false, true, ExtraProtectionConfig.OFF);
    }

    static QuorumMode bftOverNetty() {
        return new QuorumMode("eve-bft-netty", "Eve bft profile (Netty)", true, true, ExtraProtectionConfig.OFF);
    }

    private QuorumConfig baseConfig() {
        return bft ? QuorumConfig.bft(BFT_PROCESSES, 0) : QuorumConfig.crash(CRASH_PROCESSES, 0);
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
        return baseConfig().executionReplicas().length;
    }

    @Override
    public boolean usesThreads() {
        return true;
    }

    @Override
    public Running start(Workload workload, ClientSide clientSide) throws Exception {
        QuorumConfig base = baseConfig()
                .withTimeouts(1_000_000_000L, 50_000_000L)
                .withBatching(4, workload.maxBatchSize(), 1_000_000L)
                .withExtraProtection(extraProtection);
        MacKeys keys = bft ? MacKeys.generate(base.processes(), new SecureRandom()) : null;
        if (keys != null && !signed) {
            keys = keys.withoutSigning();
        }
        Cluster cluster = new Cluster(netty, base.executionReplicas());
        try {
            for (int node : base.processes()) {
                Transport transport = cluster.serverTransport(node);
                Evidence evidence = Evidence.PLAIN;
                if (keys != null) {
                    Envelopes envelopes = new Envelopes(new Authenticator(keys, node), new FrameCodec(16 << 20));
                    transport = new AuthenticatingTransport(transport, envelopes);
                    evidence = envelopes.evidence();
                }
                ReplicaRuntime process = ReplicaRuntime.builder()
                        .roles(QuorumRoles.of(base.withSelf(node), evidence, null, new Refusals(), overlap))
                        .transport(transport)
                        .application(workload.newStore())
                        .mixer(PrimaryBackupMode.mixerFor(workload))
                        .executorThreads(workload.threads())
                        .build();
                process.start();
                cluster.processes.add(process);
                cluster.noteAddress(node);
            }
            for (int c = 0; c < workload.clients(); c++) {
                int clientId = FIRST_CLIENT + c;
                cluster.clients.add(clientSide.build(() -> new EveClient(
                        cluster.clientTransport(clientId),
                        ClientConfig.of(base.executionReplicas())
                                .withQuorumReplies(base.responseQuorum())
                                .withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(60)))));
            }
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    /** The running processes and their clients. */
    private static final class Cluster extends ReplicatedRunning {
        final List<ReplicaRuntime> processes = new ArrayList<>();
        private final int executionReplicas;

        /** The first {@code executionReplicas} processes execute; the others only verify. */
        Cluster(boolean netty, int[] executionReplicas) {
            super(netty, FIRST_CLIENT);
            this.executionReplicas = executionReplicas.length;
        }

        @Override
        public Check check() throws InterruptedException {
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            List<ReplicaRuntime.StateSummary> summaries = summaries();
            while (!sameSeq(summaries) && System.nanoTime() - deadline < 0) {
                Thread.sleep(20);
                summaries = summaries();
            }
            boolean failed = processes.stream().anyMatch(ReplicaRuntime::failed);
            boolean rootsEqual = sameSeq(summaries)
                    && summaries.stream()
                                    .map(ReplicaRuntime.StateSummary::stableRoot)
                                    .distinct()
                                    .count()
                            == 1;
            long rollbacks =
                    processes.stream().mapToLong(p -> p.metrics().rollbacks()).sum();
            StringBuilder seqs = new StringBuilder();
            for (ReplicaRuntime.StateSummary summary : summaries) {
                seqs.append(seqs.length() == 0 ? "" : "/").append(summary.stableSeq());
            }
            String detail = String.format(
                    "stable seq %s, roots %s, rollbacks %d, view changes %d, %d batches planned ahead, overlapped"
                            + " %d requests, %d overlap conflicts",
                    seqs,
                    rootsEqual ? "equal" : "DIFFERENT",
                    rollbacks,
                    processes.stream().mapToLong(p -> p.status().viewChanges()).sum(),
                    processes.get(0).stage().preparedBatches(),
                    processes.get(0).stage().overlappedRequests(),
                    processes.get(0).stage().overlapConflicts());
            return new Check(!failed && rootsEqual, rootsEqual, rollbacks, detail);
        }

        private List<ReplicaRuntime.StateSummary> summaries() {
            List<ReplicaRuntime.StateSummary> summaries = new ArrayList<>();
            for (ReplicaRuntime process : processes.subList(0, Math.min(executionReplicas, processes.size()))) {
                summaries.add(process.summary());
            }
            return summaries;
        }

        private static boolean sameSeq(List<ReplicaRuntime.StateSummary> summaries) {
            return summaries.stream()
                            .mapToLong(ReplicaRuntime.StateSummary::stableSeq)
                            .distinct()
                            .count()
                    == 1;
        }

        @Override
        void closeReplicas() {
            processes.forEach(ReplicaRuntime::close);
        }
    }
}
