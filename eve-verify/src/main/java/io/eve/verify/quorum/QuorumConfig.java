package io.eve.verify.quorum;

import io.eve.config.ClusterConfig;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * Settings of the asynchronous quorum protocol (Eve §6.1), validated on construction. Ids are process
 * ids: a process may host an execution replica, a verifier, or both (the same id in both lists).
 *
 * @param u the faults of any kind the system stays live despite
 * @param r the commission (Byzantine) faults it stays safe despite
 * @param executionReplicas the {@code nE = u + max(u, r) + 1} execution replicas; replica
 *     {@code v mod nE} is the execution primary of view {@code v}
 * @param verifiers the {@code nV = 2u + r + 1} verifiers; verifier {@code v mod nV} leads view {@code v}
 * @param self this process
 * @param viewTimeoutNanos how long agreement may stall before a view change (doubles per consecutive one)
 * @param retransmitNanos how often a message that may have been lost is sent again
 * @param pipelineDepth batches the primary runs ahead of agreement
 * @param maxBatchSize requests per batch at most
 * @param maxBatchDelayNanos how long a request may wait for its batch to fill
 * @param extraProtection the extra protection mode of Eve §6.3 ({@code r = 0} only; off for {@code r >= 1})
 * @param bounds the windows beyond which messages from peers are refused (docs/quorum.md, "Bounded memory")
 * @param pipelinedAgreement whether a verifier pre-prepares batch {@code n} on the token it pre-prepared for
 *     {@code n - 1}, up to {@code pipelineDepth} past its last commit (experimental, off by default; docs/quorum.md,
 *     "Pipelined agreement"); off, it pre-prepares only the batch after its last commit
 */
public record QuorumConfig(
        int u,
        int r,
        int[] executionReplicas,
        int[] verifiers,
        int self,
        long viewTimeoutNanos,
        long retransmitNanos,
        int pipelineDepth,
        int maxBatchSize,
        long maxBatchDelayNanos,
        ExtraProtectionConfig extraProtection,
        ClusterConfig.Bounds bounds,
        boolean pipelinedAgreement) {

    public QuorumConfig {
        if (u < 1 || r < 0) {
            throw new IllegalArgumentException("u must be at least 1 and r not negative, got u = " + u + ", r = " + r);
        }
        executionReplicas = distinct(executionReplicas, u + Math.max(u, r) + 1, "executionReplicas", u, r);
        verifiers = distinct(verifiers, 2 * u + r + 1, "verifiers", u, r);
        if (!contains(executionReplicas, self) && !contains(verifiers, self)) {
            throw new IllegalArgumentException("self " + self + " is neither an execution replica "
                    + Arrays.toString(executionReplicas) + " nor a verifier " + Arrays.toString(verifiers));
        }
        if (viewTimeoutNanos <= 0 || retransmitNanos <= 0 || retransmitNanos > viewTimeoutNanos) {
            throw new IllegalArgumentException("retransmitNanos (" + retransmitNanos + ") must be positive and at most"
                    + " viewTimeoutNanos (" + viewTimeoutNanos + ")");
        }
        if (pipelineDepth < 1 || maxBatchSize < 1 || maxBatchDelayNanos < 0) {
            throw new IllegalArgumentException("pipelineDepth and maxBatchSize must be at least 1, maxBatchDelayNanos"
                    + " not negative: " + pipelineDepth + ", " + maxBatchSize + ", " + maxBatchDelayNanos);
        }
        if (extraProtection == null) {
            throw new IllegalArgumentException("extraProtection must be given (ExtraProtectionConfig.OFF for none)");
        }
        if (bounds == null) {
            throw new IllegalArgumentException("bounds must be given (ClusterConfig.Bounds.DEFAULT for the defaults)");
        }
        if (bounds.batches() <= pipelineDepth) {
            throw new IllegalArgumentException("the batch window " + bounds.batches() + " must exceed the pipeline"
                    + " depth " + pipelineDepth + ": the batches a correct primary runs ahead would be refused");
        }
        if (extraProtection.enabled() && r >= 1) {
            throw new IllegalArgumentException("extra protection mode (Eve §6.3) needs r = 0, got r = " + r
                    + ": with commission faults a verifier cannot tell a wrong token from a concurrency bug");
        }
    }

    /** As the canonical constructor, with the extra protection mode on for {@code r = 0} and off otherwise. */
    /** The settings of node {@code self} of a crash or bft cluster configuration. */
    public static QuorumConfig from(io.eve.config.ClusterConfig cluster, int self) {
        if (!cluster.profile().quorum()) {
            throw new io.eve.config.ConfigException(
                    "profile " + cluster.profile().key() + " is not a quorum profile (crash or bft)");
        }
        cluster.node(self); // names the node if it is not in the cluster
        io.eve.config.ClusterConfig.ExtraProtection protection = cluster.extraProtection();
        return new QuorumConfig(
                cluster.u(),
                cluster.r(),
                cluster.executionReplicas().stream().mapToInt(Integer::intValue).toArray(),
                cluster.verifiers().stream().mapToInt(Integer::intValue).toArray(),
                self,
                cluster.failureTimeout().toNanos(),
                cluster.heartbeatInterval().toNanos(),
                cluster.pipelineDepth(),
                cluster.maxBatchSize(),
                cluster.maxBatchDelay().toNanos(),
                new ExtraProtectionConfig(
                        protection.enabled(),
                        protection.afterBatches(),
                        protection.waitTime().toNanos(),
                        protection.warmUp().toNanos()),
                cluster.bounds(),
                cluster.pipelinedAgreement());
    }

    public QuorumConfig(
            int u,
            int r,
            int[] executionReplicas,
            int[] verifiers,
            int self,
            long viewTimeoutNanos,
            long retransmitNanos,
            int pipelineDepth,
            int maxBatchSize,
            long maxBatchDelayNanos) {
        this(
                u,
                r,
                executionReplicas,
                verifiers,
                self,
                viewTimeoutNanos,
                retransmitNanos,
                pipelineDepth,
                maxBatchSize,
                maxBatchDelayNanos,
                r == 0 ? ExtraProtectionConfig.DEFAULT : ExtraProtectionConfig.OFF,
                ClusterConfig.Bounds.DEFAULT,
                false);
    }

    private static int[] distinct(int[] ids, int expected, String what, int u, int r) {
        if (ids == null || ids.length != expected) {
            throw new IllegalArgumentException(what + " must hold " + expected + " ids for u = " + u + ", r = " + r
                    + ", got " + (ids == null ? "none" : Arrays.toString(ids)));
        }
        Set<Integer> seen = new HashSet<>();
        for (int id : ids) {
            if (id < 0 || !seen.add(id)) {
                throw new IllegalArgumentException(
                        what + " " + Arrays.toString(ids) + " must be distinct, non-negative ids (" + id + ")");
            }
        }
        return ids.clone();
    }

    /**
     * The crash profile (u = 1, r = 0): three processes, each hosting an execution replica and a verifier.
     * Defaults: 500 ms view timeout, 50 ms retransmission, 4 batches in flight, 64 requests, 2 ms delay,
     * extra protection mode {@link ExtraProtectionConfig#DEFAULT}.
     */
    public static QuorumConfig crash(int[] processes, int self) {
        return new QuorumConfig(1, 0, processes, processes, self, 500_000_000L, 50_000_000L, 4, 64, 2_000_000L);
    }

    /**
     * The bft profile (u = r = 1): four processes hosting verifiers, the first three also an execution
     * replica. Defaults as {@link #crash}.
     */
    public static QuorumConfig bft(int[] processes, int self) {
        if (processes == null || processes.length != 4) {
            throw new IllegalArgumentException("the bft profile needs 4 processes, got "
                    + (processes == null ? "none" : Arrays.toString(processes)));
        }
        return new QuorumConfig(
                1, 1, Arrays.copyOf(processes, 3), processes, self, 500_000_000L, 50_000_000L, 4, 64, 2_000_000L);
    }

    public QuorumConfig withSelf(int process) {
        return new QuorumConfig(
                u,
                r,
                executionReplicas,
                verifiers,
                process,
                viewTimeoutNanos,
                retransmitNanos,
                pipelineDepth,
                maxBatchSize,
                maxBatchDelayNanos,
                extraProtection,
                bounds,
                pipelinedAgreement);
    }

    public QuorumConfig withTimeouts(long viewTimeoutNanos, long retransmitNanos) {
        return new QuorumConfig(
                u,
                r,
                executionReplicas,
                verifiers,
                self,
                viewTimeoutNanos,
                retransmitNanos,
                pipelineDepth,
                maxBatchSize,
                maxBatchDelayNanos,
                extraProtection,
                bounds,
                pipelinedAgreement);
    }

    public QuorumConfig withBatching(int pipelineDepth, int maxBatchSize, long maxBatchDelayNanos) {
        return new QuorumConfig(
                u,
                r,
                executionReplicas,
                verifiers,
                self,
                viewTimeoutNanos,
                retransmitNanos,
                pipelineDepth,
                maxBatchSize,
                maxBatchDelayNanos,
                extraProtection,
                bounds,
                pipelinedAgreement);
    }

    /** The same settings with the windows of {@code bounds} (docs/quorum.md, "Bounded memory"). */
    public QuorumConfig withBounds(ClusterConfig.Bounds bounds) {
        return new QuorumConfig(
                u,
                r,
                executionReplicas,
                verifiers,
                self,
                viewTimeoutNanos,
                retransmitNanos,
                pipelineDepth,
                maxBatchSize,
                maxBatchDelayNanos,
                extraProtection,
                bounds,
                pipelinedAgreement);
    }

    /** The same settings with pipelined agreement on or off (docs/quorum.md, "Pipelined agreement"). */
    public QuorumConfig withPipelinedAgreement(boolean on) {
        return new QuorumConfig(
                u,
                r,
                executionReplicas,
                verifiers,
                self,
                viewTimeoutNanos,
                retransmitNanos,
                pipelineDepth,
                maxBatchSize,
                maxBatchDelayNanos,
                extraProtection,
                bounds,
                on);
    }

    /**
     * How many batches past its last commit a verifier pre-prepares: the pipeline depth with pipelined agreement,
     * else 1 (the batch after the last commit only). The rejoin bounds follow it (a restarted verifier abstains
     * up to its adopted batch + twice this).
     */
    public int agreementDepth() {
        return pipelinedAgreement ? pipelineDepth : 1;
    }

    /** The same settings with the extra protection mode of Eve §6.3 as given (on only for {@code r = 0}). */
    public QuorumConfig withExtraProtection(ExtraProtectionConfig extraProtection) {
        return new QuorumConfig(
                u,
                r,
                executionReplicas,
                verifiers,
                self,
                viewTimeoutNanos,
                retransmitNanos,
                pipelineDepth,
                maxBatchSize,
                maxBatchDelayNanos,
                extraProtection,
                bounds,
                pipelinedAgreement);
    }

    @Override
    public int[] executionReplicas() {
        return executionReplicas.clone();
    }

    @Override
    public int[] verifiers() {
        return verifiers.clone();
    }

    public int executionCount() {
        return executionReplicas.length;
    }

    public int verifierCount() {
        return verifiers.length;
    }

    /** Eve §6.1: matching VERIFY messages a verifier needs to pre-prepare, {@code max(u, r) + 1}. */
    public int verifyQuorum() {
        return Math.max(u, r) + 1;
    }

    /** Eve §6.1: matching PREPARE (or COMMIT) messages to be prepared (committed), {@code nV - u}. */
    public int agreementQuorum() {
        return verifiers.length - u;
    }

    /** Eve §6.1: matching VERIFY-RESPONSE messages an execution replica acts on, {@code r + 1}. */
    public int responseQuorum() {
        return r + 1;
    }

    public int executionPrimary(long view) {
        return executionReplicas[(int) Math.floorMod(view, (long) executionReplicas.length)];
    }

    public int leader(long view) {
        return verifiers[(int) Math.floorMod(view, (long) verifiers.length)];
    }

    public boolean isExecutionReplica(int id) {
        return contains(executionReplicas, id);
    }

    public boolean isVerifier(int id) {
        return contains(verifiers, id);
    }

    public boolean hostsExecution() {
        return isExecutionReplica(self);
    }

    public boolean hostsVerifier() {
        return isVerifier(self);
    }

    /** Every process of the cluster, in id order. */
    public int[] processes() {
        return java.util.stream.IntStream.concat(Arrays.stream(executionReplicas), Arrays.stream(verifiers))
                .distinct()
                .sorted()
                .toArray();
    }

    private static boolean contains(int[] ids, int id) {
        for (int candidate : ids) {
            if (candidate == id) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof QuorumConfig that
                && u == that.u
                && r == that.r
                && Arrays.equals(executionReplicas, that.executionReplicas)
                && Arrays.equals(verifiers, that.verifiers)
                && self == that.self
                && viewTimeoutNanos == that.viewTimeoutNanos
                && retransmitNanos == that.retransmitNanos
                && pipelineDepth == that.pipelineDepth
                && maxBatchSize == that.maxBatchSize
                && maxBatchDelayNanos == that.maxBatchDelayNanos
                && extraProtection.equals(that.extraProtection)
                && bounds.equals(that.bounds)
                && pipelinedAgreement == that.pipelinedAgreement;
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(executionReplicas) + Arrays.hashCode(verifiers) + self;
    }

    @Override
    public String toString() {
        return "QuorumConfig[u=" + u + ", r=" + r + ", execution " + Arrays.toString(executionReplicas) + ", verifiers "
                + Arrays.toString(verifiers) + ", self " + self + "]";
    }
}
