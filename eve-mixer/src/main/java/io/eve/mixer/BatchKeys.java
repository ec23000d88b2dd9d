package io.eve.mixer;

import java.util.List;
import java.util.Objects;

/**
 * One batch as the mixer sees it: its sequence number, the seed from its nondeterminism data, and the
 * conflict keys of its requests in batch order. The execution stage builds it from the batch it received.
 *
 * <p>Immutable and thread-safe.
 *
 * @param seq the batch sequence number, non-negative
 * @param seed the 64-bit seed the primary chose for this batch; experiment decorators draw from it
 * @param requests the conflict keys of each request; position {@code i} is request {@code i} of the batch
 */
public record BatchKeys(long seq, long seed, List<ConflictKeys> requests) {
    public BatchKeys {
        if (seq < 0) {
            throw new IllegalArgumentException("a batch seq is non-negative, got " + seq);
        }
        Objects.requireNonNull(requests, "requests must not be null");
        for (int i = 0; i < requests.size(); i++) {
            Objects.requireNonNull(requests.get(i), "conflict keys of request " + i + " must not be null");
        }
        requests = List.copyOf(requests);
    }

    /** Number of requests in the batch. */
    public int size() {
        return requests.size();
    }

    /** The same batch with {@code replacement} as the conflict keys of its requests. */
    public BatchKeys withRequests(List<ConflictKeys> replacement) {
        if (replacement.size() != requests.size()) {
            throw new IllegalArgumentException(
                    "batch " + seq + " has " + requests.size() + " requests, got keys for " + replacement.size());
        }
        return new BatchKeys(seq, seed, replacement);
    }
}
