package io.eve.verify.primarybackup;

import java.util.List;
import java.util.OptionalInt;

/**
 * Settings of the primary-backup protocol, validated on construction.
 *
 * <p>Without a {@code witness}, safety rests on timing: a pause or a partition longer than
 * {@code failureTimeoutNanos} may lose acknowledged writes, since each replica then decides alone that the
 * other failed (docs/primary-backup.md, "Without a witness"). With a witness, a third process grants the
 * right to commit alone, and no fault of one process, of any length, loses an acknowledged write.
 *
 * @param nodes the two replicas' ids; {@code nodes[view % 2]} is the primary of a view
 * @param self this replica's id, one of {@code nodes}
 * @param heartbeatIntervalNanos how often a replica tells its peer it is alive
 * @param failureTimeoutNanos silence after which the peer counts as failed (Eve used 4 s; default 1 s)
 * @param pipelineDepth how many batches the primary runs ahead of verification
 * @param maxBatchSize requests per batch at most
 * @param maxBatchDelayNanos how long a request may wait for its batch to fill
 * @param witness the node that fences the pair, or empty (the timing assumption above)
 */
public record PrimaryBackupConfig(
        int[] nodes,
        int self,
        long heartbeatIntervalNanos,
        long failureTimeoutNanos,
        int pipelineDepth,
        int maxBatchSize,
        long maxBatchDelayNanos,
        OptionalInt witness) {

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
        if (witness == null
                || (witness.isPresent() && (witness.getAsInt() == nodes[0] || witness.getAsInt() == nodes[1]))) {
            throw new IllegalArgumentException("the witness " + witness
                    + " must be a third node, not one of the replicas " + nodes[0] + ", " + nodes[1]);
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
        if (cluster.isWitness(self)) {
            throw new io.eve.config.ConfigException(
                    "node " + self + " is the witness (witness = " + self + "), not a replica; start it as a witness");
        }
        List<io.eve.config.NodeAddress> replicas = cluster.replicaNodes();
        return new PrimaryBackupConfig(
                new int[] {replicas.get(0).id(), replicas.get(1).id()},
                self,
                cluster.heartbeatInterval().toNanos(),
                cluster.failureTimeout().toNanos(),
                cluster.pipelineDepth(),
                cluster.maxBatchSize(),
                cluster.maxBatchDelay().toNanos(),
                cluster.witness());
    }

    /** Defaults: 100 ms heartbeats, 1 s failure timeout, 4 batches in flight, 64 requests, 2 ms delay. */
    public static PrimaryBackupConfig of(int first, int second, int self) {
        return new PrimaryBackupConfig(
                new int[] {first, second}, self, 100_000_000L, 1_000_000_000L, 4, 64, 2_000_000L, OptionalInt.empty());
    }

    public PrimaryBackupConfig withTimeouts(long heartbeatIntervalNanos, long failureTimeoutNanos) {
        return new PrimaryBackupConfig(
                nodes,
                self,
                heartbeatIntervalNanos,
                failureTimeoutNanos,
                pipelineDepth,
                maxBatchSize,
                maxBatchDelayNanos,
                witness);
    }

    public PrimaryBackupConfig withBatching(int pipelineDepth, int maxBatchSize, long maxBatchDelayNanos) {
        return new PrimaryBackupConfig(
                nodes,
                self,
                heartbeatIntervalNanos,
                failureTimeoutNanos,
                pipelineDepth,
                maxBatchSize,
                maxBatchDelayNanos,
                witness);
    }

    /** The same settings, fenced by the witness on node {@code node}. */
    public PrimaryBackupConfig withWitness(int node) {
        return new PrimaryBackupConfig(
                nodes,
                self,
                heartbeatIntervalNanos,
                failureTimeoutNanos,
                pipelineDepth,
                maxBatchSize,
                maxBatchDelayNanos,
                OptionalInt.of(node));
    }

    /**
     * The settings the witness of a primary-backup cluster uses (its replicas' ids and timeouts), for node
     * {@code witness}.
     */
    public static PrimaryBackupConfig forWitness(io.eve.config.ClusterConfig cluster, int witness) {
        if (!cluster.isWitness(witness)) {
            throw new io.eve.config.ConfigException(
                    "node " + witness + " is not the witness of this cluster (witness = "
                            + (cluster.witness().isPresent()
                                    ? Integer.toString(cluster.witness().getAsInt())
                                    : "unset") + ")");
        }
        int first = cluster.replicaNodes().get(0).id();
        return from(cluster, first);
    }

    /** The fence this replica uses: the witness's client, or the timing fence when there is no witness. */
    Fence newFence(long firstRequestId, java.util.function.BiConsumer<Integer, io.eve.protocol.Message> send) {
        return witness.isPresent()
                ? new WitnessFence(self, witness.getAsInt(), heartbeatIntervalNanos, firstRequestId, send)
                : new TimingFence();
    }

    int peer() {
        return nodes[0] == self ? nodes[1] : nodes[0];
    }

    int primaryOf(long view) {
        return nodes[(int) (view % 2)];
    }
}
