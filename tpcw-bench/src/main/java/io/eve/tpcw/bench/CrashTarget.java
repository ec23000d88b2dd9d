package io.eve.tpcw.bench;

import io.eve.Reply;
import io.eve.client.ClientConfig;
import io.eve.client.EveClient;
import io.eve.h2.H2State;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.tpcw.TpcwApplication;
import io.eve.tpcw.schema.Scale;
import io.eve.transport.LocalNetwork;
import io.eve.verify.quorum.QuorumConfig;
import io.eve.verify.quorum.QuorumRoles;
import io.eve.verify.runtime.ReplicaRuntime;
import java.sql.Connection;
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
 * browser, accepting the first reply (r + 1 = 1). Thread-safe.
 */
final class CrashTarget implements Target {
    private static final int[] PROCESSES = {0, 1, 2};

    private final LocalNetwork network = new LocalNetwork();
    private final ReplicatedDatabases databases = new ReplicatedDatabases();
    private final List<ReplicaRuntime> processes = new ArrayList<>();
    private final Map<Long, EveClient> clients = new ConcurrentHashMap<>();

    CrashTarget(String name, Scale scale, long seed, int threads, int cartPartitions, int maxBatch) throws Exception {
        try {
            for (int node : PROCESSES) {
                H2State state = databases.add(name, node, scale, seed);
                processes.add(ReplicaRuntime.builder()
                        .roles(QuorumRoles.of(QuorumConfig.crash(PROCESSES, node)
                                .withTimeouts(10_000_000_000L, 100_000_000L)
                                .withBatching(4, maxBatch, 1_000_000L)))
                        .transport(network.join(node))
                        .application(new TpcwApplication(state, scale.items(), cartPartitions))
                        .mixer(KeyConflictMixer.unbounded())
                        .executorThreads(threads)
                        .inlineBatchLimit(0)
                        .meterRegistry(databases.registry(node))
                        .build());
            }
            processes.forEach(ReplicaRuntime::start);
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
        long rollbacks = 0;
        for (ReplicaRuntime process : processes) {
            rollbacks += process.metrics().rollbacks();
        }
        return databases.counters(rollbacks);
    }

    @Override
    public long committed() {
        return processes.get(0).metrics().repliesReleased();
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
        processes.forEach(ReplicaRuntime::close);
        network.close();
        databases.close();
    }
}
