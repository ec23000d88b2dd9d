package io.eve.tpcw.bench;

import io.eve.Reply;
import io.eve.client.ClientConfig;
import io.eve.client.EveClient;
import io.eve.h2.H2State;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.tpcw.TpcwApplication;
import io.eve.tpcw.schema.Scale;
import io.eve.transport.LocalNetwork;
import io.eve.verify.primarybackup.PrimaryBackupConfig;
import io.eve.verify.primarybackup.PrimaryBackupRoles;
import io.eve.verify.runtime.ReplicaRuntime;
import java.sql.Connection;
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
    private final ReplicatedDatabases databases = new ReplicatedDatabases();
    private final List<ReplicaRuntime> replicas = new ArrayList<>();
    private final Map<Long, EveClient> clients = new ConcurrentHashMap<>();

    EveTarget(String name, Scale scale, long seed, int threads, int cartPartitions, int maxBatch) throws Exception {
        try {
            for (int node = 0; node < 2; node++) {
                H2State state = databases.add(name, node, scale, seed);
                ReplicaRuntime replica = ReplicaRuntime.builder()
                        .roles(PrimaryBackupRoles.of(PrimaryBackupConfig.of(0, 1, node)
                                .withTimeouts(100_000_000L, 10_000_000_000L)
                                .withBatching(4, maxBatch, 1_000_000L)))
                        .transport(network.join(node))
                        .application(new TpcwApplication(state, scale.items(), cartPartitions))
                        .mixer(KeyConflictMixer.unbounded())
                        .executorThreads(threads)
                        .inlineBatchLimit(0)
                        .meterRegistry(databases.registry(node))
                        .build();
                replicas.add(replica);
            }
            replicas.forEach(ReplicaRuntime::start);
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
        long rollbacks = 0;
        for (ReplicaRuntime replica : replicas) {
            rollbacks += replica.metrics().rollbacks();
        }
        return databases.counters(rollbacks);
    }

    @Override
    public long committed() {
        return replicas.get(0).metrics().repliesReleased();
    }

    @Override
    public Connection inspect() throws SQLException {
        return databases.inspect();
    }

    @Override
    public RootCheck checkRoots() throws InterruptedException {
        return databases.checkRoots();
    }

    @Override
    public void close() {
        clients.values().forEach(EveClient::close);
        replicas.forEach(ReplicaRuntime::close);
        network.close();
        databases.close();
    }
}
