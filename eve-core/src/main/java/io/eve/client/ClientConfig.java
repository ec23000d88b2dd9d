package io.eve.client;

import java.time.Duration;

/**
 * Settings of an {@link EveClient}, validated on construction.
 *
 * @param replicas the replicas' node ids, tried in this order
 * @param attemptTimeout how long to wait for a reply before resending the same request to the next replica
 * @param requestTimeout how long a request may take in all before it fails with {@link RequestTimeoutException}
 * @param maxOutstanding requests in flight at once; {@link EveClient#submit} waits for a free slot
 * @param maxRequestBytes the largest payload accepted; larger ones fail with {@link RequestTooLargeException}
 */
public record ClientConfig(
        int[] replicas, Duration attemptTimeout, Duration requestTimeout, int maxOutstanding, int maxRequestBytes) {

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
    }

    /** Defaults: 500 ms per attempt, 30 s per request, 1024 outstanding, 1 MiB payloads. */
    public static ClientConfig of(int... replicas) {
        return new ClientConfig(replicas, Duration.ofMillis(500), Duration.ofSeconds(30), 1024, 1 << 20);
    }

    public ClientConfig withTimeouts(Duration attempt, Duration request) {
        return new ClientConfig(replicas, attempt, request, maxOutstanding, maxRequestBytes);
    }

    public ClientConfig withMaxOutstanding(int outstanding) {
        return new ClientConfig(replicas, attemptTimeout, requestTimeout, outstanding, maxRequestBytes);
    }
}
