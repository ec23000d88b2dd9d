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
import io.eve.verify.primarybackup.PrimaryBackupConfig;
import io.eve.verify.primarybackup.PrimaryBackupReplica;
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
 * Eve's synchronous primary-backup pair in this JVM (Eve §6, Fig. 3's "Eve-PrimaryBackup"): two replicas
 * over a {@link LocalNetwork}, each with its own eve-h2 database populated identically, T executor
 * threads each, {@link KeyConflictMixer} over the TPC-W conflict keys; one {@link EveClient} per emulated
 * browser. Thread-safe.
 */
final class EveTarget implements Target {
    private final LocalNetwork network = new LocalNetwork();
    private final List<H2State> states = new ArrayList<>();
    private final List<String> urls = new ArrayList<>();
    private final List<SimpleMeterRegistry> registries = new ArrayList<>();
    private final List<PrimaryBackupReplica> replicas = new ArrayList<>();
    private final Map<Long, EveClient> clients = new ConcurrentHashMap<>();

    EveTarget(String name, Scale scale, long seed, int threads, int cartPartitions, int maxBatch) throws Exception {
        try {
            for (int node = 0; node < 2; node++) {
                String url = "jdbc:h2:mem:" + name + "-replica" + node;
                H2State state = TpcwDatabase.newState(url, scale, seed);
                states.add(state);
                urls.add(url);
                SimpleMeterRegistry registry = new SimpleMeterRegistry();
                registries.add(registry);
                PrimaryBackupReplica replica = PrimaryBackupReplica.builder()
                        .config(PrimaryBackupConfig.of(0, 1, node)
                                .withTimeouts(100_000_000L, 10_000_000_000L)
                                .withBatching(4, maxBatch, 1_000_000L))
                        .transport(network.join(node))
                        .application(new TpcwApplication(state, scale.items(), cartPartitions))
                        .mixer(KeyConflictMixer.unbounded())
                        .executorThreads(threads)
                        .inlineBatchLimit(0)
                        .meterRegistry(registry)
                        .build();
                replicas.add(replica);
            }
            replicas.forEach(PrimaryBackupReplica::start);
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
                        ClientConfig.of(0, 1).withTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(60))));
        Reply reply = client.call(payload);
        return !reply.error();
    }

    @Override
    public PipelineCounters counters() {
        SimpleMeterRegistry primary = registries.get(0);
        DistributionSummary requests = primary.find("eve.batch.requests").summary();
        DistributionSummary parallel = primary.find("eve.batch.parallel").summary();
        long rollbacks = 0;
        for (PrimaryBackupReplica replica : replicas) {
            rollbacks += replica.metrics().rollbacks();
        }
        return new PipelineCounters(
                requests == null ? 0 : requests.count(),
                requests == null ? 0 : requests.totalAmount(),
                parallel == null ? 0 : parallel.totalAmount(),
                rollbacks);
    }

    @Override
    public long committed() {
        return replicas.get(0).metrics().repliesReleased();
    }

    @Override
    public Connection inspect() throws SQLException {
        return DriverManager.getConnection(urls.get(0), "sa", "");
    }

    /**
     * Waits until both replicas have sealed the same last batch and nothing moves any more, then compares
     * their sealed roots and recomputes each root from a full scan of the tables.
     */
    @Override
    public RootCheck checkRoots() throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        long last = -2;
        while (System.nanoTime() < deadline) {
            long primary = states.get(0).sealedSeq();
            long backup = states.get(1).sealedSeq();
            if (primary == backup && primary == last) {
                break;
            }
            last = primary == backup ? primary : -2;
            Thread.sleep(200);
        }
        long seq = states.get(0).sealedSeq();
        if (states.get(1).sealedSeq() != seq) {
            return new RootCheck(
                    false,
                    seq,
                    "replicas did not settle: primary at " + seq + ", backup at "
                            + states.get(1).sealedSeq());
        }
        Digest primaryRoot = states.get(0).rootAt(seq);
        Digest backupRoot = states.get(1).rootAt(seq);
        boolean scansMatch = states.get(0).scanRoot().equals(primaryRoot)
                && states.get(1).scanRoot().equals(backupRoot);
        boolean agreed = primaryRoot.equals(backupRoot) && scansMatch;
        return new RootCheck(
                agreed,
                seq,
                "batch " + seq + ": primary " + primaryRoot + ", backup " + backupRoot + ", full scans "
                        + (scansMatch ? "match" : "DIFFER"));
    }

    @Override
    public void close() {
        clients.values().forEach(EveClient::close);
        replicas.forEach(PrimaryBackupReplica::close);
        network.close();
        states.forEach(H2State::close);
    }
}
