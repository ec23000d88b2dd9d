package io.eve.verify.primarybackup;

/**
 * Settings of the primary-backup protocol, validated on construction.
 *
 * @param nodes the two replicas' ids; {@code nodes[view % 2]} is the primary of a view
 * @param self this replica's id, one of {@code nodes}
 * @param heartbeatIntervalNanos how often a replica tells its peer it is alive
 * @param failureTimeoutNanos silence after which the peer counts as failed (Eve used 4 s; default 1 s)
 * @param pipelineDepth how many batches the primary runs ahead of verification
 * @param maxBatchSize requests per batch at most
 * @param maxBatchDelayNanos how long a request may wait for its batch to fill
 */
public record PrimaryBackupConfig(
        int[] nodes,
        int self,
        long heartbeatIntervalNanos,
        long failureTimeoutNanos,
        int pipelineDepth,
        int maxBatchSize,
        long maxBatchDelayNanos) {

    public PrimaryBackupConfig {
        if (nodes == null || nodes.length != 2 || nodes[0] == nodes[1]) {
            throw new IllegalArgumentException("primary-backup needs exactly two distinct node ids");
        }
        nodes = nodes.clone();
        if (self != nodes[0] && self != nodes[1]) {
            throw new IllegalArgumentException(
                    "self " + self + " is not one of the nodes " + nodes[0] + ", " + nodes[1]);
        }
        if (heartbeatIntervalNanos <= 0 || failureTimeoutNanos <= heartbeatIntervalNanos) {
            throw new IllegalArgumentException("failureTimeoutNanos (" + failureTimeoutNanos
                    + ") must exceed heartbeatIntervalNanos (" + heartbeatIntervalNanos + ") > 0");
        }
        if (pipelineDepth < 1 || maxBatchSize < 1 || maxBatchDelayNanos < 0) {
            throw new IllegalArgumentException("pipelineDepth and maxBatchSize must be at least 1, maxBatchDelayNanos"
                    + " not negative: " + pipelineDepth + ", " + maxBatchSize + ", " + maxBatchDelayNanos);
        }
    }

    /**
     * The settings of node {@code self} of a primary-backup cluster configuration: its two nodes, timeouts and
     * batching.
     */
    public static PrimaryBackupConfig from(io.eve.config.ClusterConfig cluster, int self) {
        if (cluster.profile() != io.eve.config.ClusterConfig.Profile.PRIMARY_BACKUP) {
            throw new io.eve.config.ConfigException(
                    "profile " + cluster.profile().key() + " is not primary-backup");
        }
        cluster.node(self); // names the node if it is not in the cluster
        return new PrimaryBackupConfig(
                new int[] {cluster.nodes().get(0).id(), cluster.nodes().get(1).id()},
                self,
                cluster.heartbeatInterval().toNanos(),
                cluster.failureTimeout().toNanos(),
                cluster.pipelineDepth(),
                cluster.maxBatchSize(),
                cluster.maxBatchDelay().toNanos());
    }

    /** Defaults: 100 ms heartbeats, 1 s failure timeout, 4 batches in flight, 64 requests, 2 ms delay. */
    public static PrimaryBackupConfig of(int first, int second, int self) {
        return new PrimaryBackupConfig(
                new int[] {first, second}, self, 100_000_000L, 1_000_000_000L, 4, 64, 2_000_000L);
    }

    public PrimaryBackupConfig withTimeouts(long heartbeatIntervalNanos, long failureTimeoutNanos) {
        return new PrimaryBackupConfig(
                nodes,
                self,
                heartbeatIntervalNanos,
                failureTimeoutNanos,
                pipelineDepth,
                maxBatchSize,
                maxBatchDelayNanos);
    }

    public PrimaryBackupConfig withBatching(int pipelineDepth, int maxBatchSize, long maxBatchDelayNanos) {
        return new PrimaryBackupConfig(
                nodes,
                self,
                heartbeatIntervalNanos,
                failureTimeoutNanos,
                pipelineDepth,
                maxBatchSize,
                maxBatchDelayNanos);
    }

    int peer() {
        return nodes[0] == self ? nodes[1] : nodes[0];
    }

    int primaryOf(long view) {
        return nodes[(int) (view % 2)];
    }
}
