package io.eve.tpcw.bench;

import io.eve.client.EveClient;
import io.eve.config.ClusterConfig;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A cluster of replica processes as the load sees it: one {@link EveClient} over TCP per emulated browser,
 * its client id the browser's; rollbacks summed over every node's {@code /status}. The databases live in
 * the replica processes, so nothing here reads them. Thread-safe.
 */
final class ClusterTarget implements LoadTarget, AutoCloseable {
    private final ClusterConfig cluster;
    private final ReplicaProbe probe;
    private final Map<Long, EveClient> clients = new ConcurrentHashMap<>();

    ClusterTarget(ClusterConfig cluster, ReplicaProbe probe) {
        this.cluster = cluster;
        this.probe = probe;
    }

    @Override
    public boolean call(long clientId, byte[] payload) {
        EveClient client = clients.computeIfAbsent(clientId, id -> EveClient.connect(cluster, Math.toIntExact(id)));
        return !client.call(payload).error();
    }

    @Override
    public Target.PipelineCounters counters() {
        try {
            return new Target.PipelineCounters(0, 0, 0, probe.totals().rollbacks());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Target.PipelineCounters.NONE;
        }
    }

    @Override
    public void close() {
        clients.values().forEach(EveClient::close);
    }
}
