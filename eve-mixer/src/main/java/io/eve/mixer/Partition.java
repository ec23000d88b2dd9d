package io.eve.mixer;

import java.util.List;
import java.util.Objects;

/**
 * A mixer's answer for one batch: the parallel batches, in execution order, and the conflict keys the mixer
 * computed them from. An execution that replaces the barriers between parallel batches by waiting only for
 * conflicting earlier requests must order requests by these keys, not by the application's: a decorator that
 * invents a conflict (a false positive) or hides one (a false negative) then changes the execution as it
 * changed the split.
 *
 * <p>Immutable and thread-safe.
 *
 * @param parallelBatches the parallel batches, in execution order
 * @param keys the batch with the conflict keys the split was computed from, request by request
 */
public record Partition(List<ParallelBatch> parallelBatches, BatchKeys keys) {
    public Partition {
        parallelBatches = List.copyOf(Objects.requireNonNull(parallelBatches, "parallelBatches must not be null"));
        Objects.requireNonNull(keys, "keys must not be null");
        int placed = 0;
        for (ParallelBatch parallel : parallelBatches) {
            placed += parallel.size();
        }
        if (placed != keys.size()) {
            throw new IllegalArgumentException(
                    "the parallel batches place " + placed + " requests, the batch holds " + keys.size());
        }
    }
}
