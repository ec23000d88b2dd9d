package io.eve.bench.suite;

import io.eve.client.ClientConfig;
import io.eve.client.EveClient;
import io.eve.verify.quorum.ExtraProtectionConfig;
import io.eve.verify.quorum.QuorumConfig;
import io.eve.verify.quorum.QuorumProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Eve's crash profile (u = 1, r = 0, Eve §6.1): three {@link QuorumProcess}es in this JVM, each an
 * execution replica and a verifier, over the in-JVM {@code LocalNetwork} or over Netty on loopback (the
 * comparison with Raft, which talks TCP). Clients accept the first reply (r + 1 = 1).
 */
final class QuorumMode implements Mode {
    private static final int FIRST_CLIENT = 1000;
    private static final int[] PROCESSES = {0, 1, 2};

    private final String id;
    private final String label;
    private final boolean netty;
    private final ExtraProtectionConfig extraProtection;

    private QuorumMode(String id, String label, boolean netty, ExtraProtectionConfig extraProtection) {
        this.id = id;
        this.label = label;
        this.netty = netty;
        this.extraProtection = extraProtection;
    }

    static QuorumMode crash() {
        return new QuorumMode("eve-crash", "Eve crash profile", false, ExtraProtectionConfig.DEFAULT);
    }

    /** The crash profile without the extra protection mode (Eve §6.3), to measure what the mode costs. */
    static QuorumMode crashWithoutExtraProtection() {
        return new QuorumMode(
                "eve-crash-no-epm", "Eve crash profile, no extra protection", false, ExtraProtectionConfig.OFF);
    }

    static QuorumMode crashOverNetty() {
        return new QuorumMode("eve-crash-netty", "Eve crash profile (Netty)", true, ExtraProtectionConfig.DEFAULT);
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
        return PROCESSES.length;
    }

    @Override
    public boolean usesThreads() {
        return true;
    }

    @Override
    public Running start(Workload workload, ClientSide clientSide) throws Exception {
        Cluster cluster = new Cluster(netty);
        try {
            for (int node : PROCESSES) {
                QuorumProcess process = QuorumProcess.builder()
                        .config(QuorumConfig.crash(PROCESSES, node)
                                .withTimeouts(1_000_000_000L, 50_000_000L)
                                .withBatching(4, workload.maxBatchSize(), 1_000_000L)
                                .withExtraProtection(extraProtection))
                        .transport(cluster.serverTransport(node))
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
                        ClientConfig.of(PROCESSES)
                                .withQuorumReplies(1)
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
        final List<QuorumProcess> processes = new ArrayList<>();

        Cluster(boolean netty) {
            super(netty, FIRST_CLIENT);
        }

        @Override
        public Check check() throws InterruptedException {
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            List<QuorumProcess.StateSummary> summaries = summaries();
            while (!sameSeq(summaries) && System.nanoTime() - deadline < 0) {
                Thread.sleep(20);
                summaries = summaries();
            }
            boolean failed = processes.stream().anyMatch(QuorumProcess::failed);
            boolean rootsEqual = sameSeq(summaries)
                    && summaries.stream()
                                    .map(QuorumProcess.StateSummary::stableRoot)
                                    .distinct()
                                    .count()
                            == 1;
            long rollbacks =
                    processes.stream().mapToLong(QuorumProcess::rollbacks).sum();
            StringBuilder seqs = new StringBuilder();
            for (QuorumProcess.StateSummary summary : summaries) {
                seqs.append(seqs.length() == 0 ? "" : "/").append(summary.stableSeq());
            }
            String detail = String.format(
                    "stable seq %s, roots %s, rollbacks %d, view changes %d",
                    seqs,
                    rootsEqual ? "equal" : "DIFFERENT",
                    rollbacks,
                    processes.stream()
                            .mapToLong(QuorumProcess::viewChangesStarted)
                            .sum());
            return new Check(!failed && rootsEqual, rootsEqual, rollbacks, detail);
        }

        private List<QuorumProcess.StateSummary> summaries() {
            List<QuorumProcess.StateSummary> summaries = new ArrayList<>();
            for (QuorumProcess process : processes) {
                summaries.add(process.summary());
            }
            return summaries;
        }

        private static boolean sameSeq(List<QuorumProcess.StateSummary> summaries) {
            return summaries.stream()
                            .mapToLong(QuorumProcess.StateSummary::stableSeq)
                            .distinct()
                            .count()
                    == 1;
        }

        @Override
        void closeReplicas() {
            processes.forEach(QuorumProcess::close);
        }
    }
}
