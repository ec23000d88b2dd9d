package io.eve.tpcw.bench;

import io.eve.Reply;
import io.eve.client.ClientConfig;
import io.eve.client.EveClient;
import io.eve.h2.H2State;
import io.eve.merkle.Digest;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.tpcw.TpcwApplication;
import io.eve.tpcw.TpcwDatabase;
import io.eve.tpcw.schema.Scale;
import io.eve.transport.LocalNetwork;
import io.eve.verify.quorum.QuorumConfig;
import io.eve.verify.quorum.QuorumProcess;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Eve's crash profile in this JVM (Eve §6.1, u = 1, r = 0): three processes over a {@link LocalNetwork},
 * each an execution replica and a verifier with its own eve-h2 database populated identically, T executor
 * threads each, {@link KeyConflictMixer} over the TPC-W conflict keys; one {@link EveClient} per emulated
 * browser, accepting the first reply. Thread-safe.
 */
final class CrashTarget implements Target {
    private static final int[] PROCESSES = {0, 1, 2};

    private final LocalNetwork network = new LocalNetwork();
    private final List<H2State> states = new ArrayList<>();
    private final List<String> urls = new ArrayList<>();
    private final List<SimpleMeterRegistry> registries = new ArrayList<>();
    private final List<QuorumProcess> processes = new ArrayList<>();
    private final Map<Long, EveClient> clients = new ConcurrentHashMap<>();

    CrashTarget(String name, Scale scale, long seed, int threads, int cartPartitions, int maxBatch) throws Exception {
        try {
            for (int node : PROCESSES) {
                String url = "jdbc:h2:mem:" + name + "-replica" + node;
                H2State state = TpcwDatabase.newState(url, scale, seed);
                states.add(state);
                urls.add(url);
                SimpleMeterRegistry registry = new SimpleMeterRegistry();
                registries.add(registry);
                processes.add(QuorumProcess.builder()
                        .config(QuorumConfig.crash(PROCESSES, node)
                                .withTimeouts(10_000_000_000L, 100_000_000L)
                                .withBatching(4, maxBatch, 1_000_000L))
                        .transport(network.join(node))
                        .application(new TpcwApplication(state, scale.items(), cartPartitions))
                        .mixer(KeyConflictMixer.unbounded())
                        .executorThreads(threads)
                        .inlineBatchLimit(0)
                        .meterRegistry(registry)
                        .build());
            }
            processes.forEach(QuorumProcess::start);
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    @Override
    public boolean call(long clientId, byte[] payload) {
        EveClient client = clients.computeIfAbsent(
                clientId,
                id -> new EveClient(
                        network.join(Math.toIntExact(id)),
                        ClientConfig.of(PROCESSES)
                                .withQuorumReplies(1)
                                .withTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(60))));
        Reply reply = client.call(payload);
        return !reply.error();
    }

    @Override
    public PipelineCounters counters() {
        SimpleMeterRegistry first = registries.get(0);
        DistributionSummary requests = first.find("eve.batch.requests").summary();
        DistributionSummary parallel = first.find("eve.batch.parallel").summary();
        long rollbacks = 0;
        for (QuorumProcess process : processes) {
            rollbacks += process.rollbacks();
        }
        return new PipelineCounters(
                requests == null ? 0 : requests.count(),
                requests == null ? 0 : requests.totalAmount(),
                parallel == null ? 0 : parallel.totalAmount(),
                rollbacks);
    }

    @Override
    public long committed() {
        return processes.get(0).metrics().repliesReleased();
    }

    @Override
    public Connection inspect() throws SQLException {
        return DriverManager.getConnection(urls.get(0), "sa", "");
    }

    /**
     * Waits until every process has sealed the same last batch and nothing moves any more, then compares
     * their sealed roots and recomputes each root from a full scan of the tables.
     */
    @Override
    public RootCheck checkRoots() throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        long last = -2;
        while (System.nanoTime() - deadline < 0) {
            long seq = settledSeq();
            if (seq >= 0 && seq == last) {
                break;
            }
            last = seq;
            Thread.sleep(200);
        }
        long seq = settledSeq();
        if (seq < 0) {
            return new RootCheck(false, states.get(0).sealedSeq(), "processes did not settle on one batch");
        }
        List<Digest> roots = new ArrayList<>();
        boolean scansMatch = true;
        for (H2State state : states) {
            Digest root = state.rootAt(seq);
            roots.add(root);
            scansMatch &= state.scanRoot().equals(root);
        }
        boolean agreed = roots.stream().distinct().count() == 1 && scansMatch;
        return new RootCheck(
                agreed, seq, "batch " + seq + ": roots " + roots + ", full scans " + (scansMatch ? "match" : "DIFFER"));
    }

    /** The batch every process has sealed, or -1 while they differ. */
    private long settledSeq() {
        long seq = states.get(0).sealedSeq();
        for (H2State state : states) {
            if (state.sealedSeq() != seq) {
                return -1;
            }
        }
        return seq;
    }

    @Override
    public void close() {
        clients.values().forEach(EveClient::close);
        processes.forEach(QuorumProcess::close);
        network.close();
        states.forEach(H2State::close);
    }
}
