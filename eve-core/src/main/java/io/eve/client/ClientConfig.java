package io.eve.client;

import java.time.Duration;

/**
 * Settings of an {@link EveClient}, validated on construction.
 *
 * @param replicas the replicas' node ids, tried in this order
 * @param attemptTimeout how long to wait for a reply before resending the same request to the next replica
 * @param requestTimeout how long a request may take in all before it fails with {@link RequestTimeoutException}
 * @param maxOutstanding requests in flight at once; {@link EveClient#submit} waits for a free slot; at most
 *     {@link io.eve.Request#SESSION_WINDOW}, the replies the replicas keep per client
 * @param maxRequestBytes the largest payload accepted; larger ones fail with {@link RequestTooLargeException}
 * @param matchingReplies how many distinct replicas must send byte-identical replies before one is accepted:
 *     {@code r + 1} for the quorum profiles (Eve §6.1), 1 for primary-backup and crash
 * @param broadcastRetries whether a request whose attempt timed out goes to every replica at once (quorum
 *     profiles: replicas forward it to the primary or answer from their reply cache) instead of the next one
 * @param readTimeout how long {@link EveClient#read} waits for every replica's answer to a read-only request
 *     before sending it again as an ordered request (Eve §6's read-only optimisation); zero turns the
 *     optimisation off, so {@code read} is {@code submit}
 */
public record ClientConfig(
        int[] replicas,
        Duration attemptTimeout,
        Duration requestTimeout,
        int maxOutstanding,
        int maxRequestBytes,
        int matchingReplies,
        boolean broadcastRetries,
        Duration readTimeout) {

    public ClientConfig {
        if (replicas == null || replicas.length == 0) {
            throw new IllegalArgumentException("a client needs at least one replica id");
        }
        replicas = replicas.clone();
        if (attemptTimeout.isNegative() || attemptTimeout.isZero()) {
            throw new IllegalArgumentException("attemptTimeout must be positive, got " + attemptTimeout);
        }
        if (requestTimeout.compareTo(attemptTimeout) < 0) {
            throw new IllegalArgumentException(
                    "requestTimeout (" + requestTimeout + ") must be at least attemptTimeout (" + attemptTimeout + ")");
        }
        if (maxOutstanding < 1 || maxRequestBytes < 1) {
            throw new IllegalArgumentException("maxOutstanding and maxRequestBytes must be positive, got "
                    + maxOutstanding + " and " + maxRequestBytes);
        }
        if (maxOutstanding > io.eve.Request.SESSION_WINDOW) {
            throw new IllegalArgumentException("maxOutstanding must be at most the session window of "
                    + io.eve.Request.SESSION_WINDOW + " requests, got " + maxOutstanding);
        }
        if (readTimeout.isNegative() || readTimeout.compareTo(requestTimeout) > 0) {
            throw new IllegalArgumentException("readTimeout must be between zero (no read-only optimisation) and"
                    + " requestTimeout (" + requestTimeout + "), got " + readTimeout);
        }
        if (matchingReplies < 1 || matchingReplies > replicas.length) {
            throw new IllegalArgumentException("matchingReplies must be between 1 and the " + replicas.length
                    + " replicas, got " + matchingReplies);
        }
    }

    /**
     * Defaults: 500 ms per attempt, 30 s per request, 1024 outstanding, 1 MiB payloads, read-only requests
     * reissued after 200 ms without every replica's answer.
     */
    public static ClientConfig of(int... replicas) {
        return new ClientConfig(
                replicas,
                Duration.ofMillis(500),
                Duration.ofSeconds(30),
                1024,
                1 << 20,
                1,
                false,
                Duration.ofMillis(200));
    }

    /**
     * A client of {@code cluster}: its execution replicas (both replicas for primary-backup), with
     * {@link #withQuorumReplies} of {@code r + 1} for the quorum profiles, and attempts of half the failure
     * timeout plus 100 ms.
     */
    public static ClientConfig forCluster(io.eve.config.ClusterConfig cluster, Duration requestTimeout) {
        int[] targets =
                cluster.clientTargets().stream().mapToInt(Integer::intValue).toArray();
        ClientConfig config =
                of(targets).withTimeouts(cluster.failureTimeout().dividedBy(2).plusMillis(100), requestTimeout);
        return cluster.profile().quorum() ? config.withQuorumReplies(cluster.matchingReplies()) : config;
    }

    public ClientConfig withTimeouts(Duration attempt, Duration request) {
        return new ClientConfig(
                replicas,
                attempt,
                request,
                maxOutstanding,
                maxRequestBytes,
                matchingReplies,
                broadcastRetries,
                readTimeout.compareTo(request) > 0 ? request : readTimeout);
    }

    /** How long a read-only request waits for every replica's answer; zero turns the optimisation off. */
    public ClientConfig withReadTimeout(Duration timeout) {
        return new ClientConfig(
                replicas,
                attemptTimeout,
                requestTimeout,
                maxOutstanding,
                maxRequestBytes,
                matchingReplies,
                broadcastRetries,
                timeout);
    }

    /** Whether {@link EveClient#read} tries the read-only optimisation first. */
    public boolean readOnlyOptimisation() {
        return !readTimeout.isZero();
    }

    public ClientConfig withMaxOutstanding(int outstanding) {
        return new ClientConfig(
                replicas,
                attemptTimeout,
                requestTimeout,
                outstanding,
                maxRequestBytes,
                matchingReplies,
                broadcastRetries,
                readTimeout);
    }

    /**
     * The quorum profiles' client (Eve §6.1): accept a reply once {@code matching} distinct execution
     * replicas sent the same one ({@code r + 1}), and broadcast a request whose attempt timed out.
     */
    public ClientConfig withQuorumReplies(int matching) {
        return new ClientConfig(
                replicas, attemptTimeout, requestTimeout, maxOutstanding, maxRequestBytes, matching, true, readTimeout);
    }

    @Override
    public int[] replicas() {
        return replicas.clone();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ClientConfig that
                && java.util.Arrays.equals(replicas, that.replicas)
                && attemptTimeout.equals(that.attemptTimeout)
                && requestTimeout.equals(that.requestTimeout)
                && maxOutstanding == that.maxOutstanding
                && maxRequestBytes == that.maxRequestBytes
                && matchingReplies == that.matchingReplies
                && broadcastRetries == that.broadcastRetries
                && readTimeout.equals(that.readTimeout);
    }

    @Override
    public int hashCode() {
        return java.util.Arrays.hashCode(replicas) * 31 + attemptTimeout.hashCode() + matchingReplies;
    }

    @Override
    public String toString() {
        return "ClientConfig[replicas=" + java.util.Arrays.toString(replicas) + ", attemptTimeout=" + attemptTimeout
                + ", requestTimeout=" + requestTimeout + ", maxOutstanding=" + maxOutstanding + ", matchingReplies="
                + matchingReplies + ", broadcastRetries=" + broadcastRetries + ", readTimeout=" + readTimeout + "]";
    }
}
