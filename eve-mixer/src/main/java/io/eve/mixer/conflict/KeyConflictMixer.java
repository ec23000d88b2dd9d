package io.eve.mixer.conflict;

import io.eve.mixer.BatchKeys;
import io.eve.mixer.ConflictKeys;
import io.eve.mixer.Mixer;
import io.eve.mixer.ParallelBatch;
import java.util.List;

/**
 * Eve's mixer (§5.1): each request goes into the first parallel batch where it conflicts with nothing,
 * else into a new one, and a parallel batch may be capped in size.
 *
 * <p>One rule is added to the paper's first-fit: a request never lands in, or before, a parallel batch that
 * holds an earlier request it conflicts with, so conflicting requests run in batch order exactly as a
 * sequential execution would. Because every parallel batch after the last one holding such a request is
 * free of conflicts with it, placement reduces to "the first parallel batch with room, at or after the one
 * following the last conflicting request". Finding that batch costs one look-up per key, so a batch mixes
 * in time linear in its total number of keys.
 *
 * <p>Deterministic: the result depends only on the batch (never on key iteration order). Stateless and
 * thread-safe.
 */
public final class KeyConflictMixer implements Mixer {
    private final int maxRequestsPerParallelBatch;

    private KeyConflictMixer(int maxRequestsPerParallelBatch) {
        this.maxRequestsPerParallelBatch = maxRequestsPerParallelBatch;
    }

    /** A mixer that puts any number of non-conflicting requests in one parallel batch. */
    public static KeyConflictMixer unbounded() {
        return new KeyConflictMixer(Integer.MAX_VALUE);
    }

    /**
     * A mixer that puts at most {@code maxRequests} requests in one parallel batch, for instance the number
     * of executor threads.
     */
    public static KeyConflictMixer capped(int maxRequests) {
        if (maxRequests < 1) {
            throw new IllegalArgumentException(
                    "a parallel batch must be allowed at least 1 request, got a cap of " + maxRequests);
        }
        return new KeyConflictMixer(maxRequests);
    }

    @Override
    public List<ParallelBatch> mix(BatchKeys batch) {
        List<ConflictKeys> requests = batch.requests();
        // Most requests declare a key of their own and the execution stage adds the client's: about two each.
        KeyIndex index = new KeyIndex(2 * requests.size());
        FirstFitSlots slots = new FirstFitSlots(maxRequestsPerParallelBatch);
        for (int position = 0; position < requests.size(); position++) {
            ConflictKeys keys = requests.get(position);
            int slot = slots.place(position, index.firstAllowedSlot(keys));
            index.record(keys, slot);
        }
        return slots.toParallelBatches();
    }

    @Override
    public String toString() {
        return maxRequestsPerParallelBatch == Integer.MAX_VALUE
                ? "KeyConflictMixer(unbounded)"
                : "KeyConflictMixer(cap " + maxRequestsPerParallelBatch + ")";
    }
}
