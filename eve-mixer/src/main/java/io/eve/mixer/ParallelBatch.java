package io.eve.mixer;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A group of requests that a replica runs concurrently (Eve's parallelBatch), named by their positions in
 * the batch, ascending.
 *
 * <p>Immutable and thread-safe.
 *
 * @param requests positions of the requests in the batch, non-negative and strictly ascending, at least one
 */
public record ParallelBatch(List<Integer> requests) {
    public ParallelBatch {
        Objects.requireNonNull(requests, "requests must not be null");
        requests = List.copyOf(requests);
        if (requests.isEmpty()) {
            throw new IllegalArgumentException("a parallel batch holds at least one request");
        }
        requireAscending(requests);
    }

    /** A parallel batch of the requests at {@code positions}. */
    public static ParallelBatch of(int... positions) {
        return new ParallelBatch(Arrays.stream(positions).boxed().collect(Collectors.toList()));
    }

    /** Number of requests in this parallel batch. */
    public int size() {
        return requests.size();
    }

    private static void requireAscending(List<Integer> requests) {
        int previous = -1;
        for (int position : requests) {
            if (position <= previous) {
                throw new IllegalArgumentException(
                        "request positions must be non-negative and strictly ascending, got " + requests);
            }
            previous = position;
        }
    }
}
