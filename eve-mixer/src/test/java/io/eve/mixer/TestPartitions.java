package io.eve.mixer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/** Checks and renderings of a mixer's output, shared by the tests of every mixer. */
public final class TestPartitions {
    private TestPartitions() {}

    /** A compact rendering, {@code "0 2 | 1"}: parallel batches in order, separated by bars. */
    public static String render(List<ParallelBatch> partition) {
        return partition.stream()
                .map(parallel ->
                        parallel.requests().stream().map(String::valueOf).collect(Collectors.joining(" ")))
                .collect(Collectors.joining(" | "));
    }

    /**
     * The parallel batch of each request, after asserting that the partition covers every request of the
     * batch exactly once.
     */
    public static int[] slotOf(BatchKeys batch, List<ParallelBatch> partition) {
        int[] slots = new int[batch.size()];
        Arrays.fill(slots, -1);
        for (int slot = 0; slot < partition.size(); slot++) {
            for (int position : partition.get(slot).requests()) {
                assertThat(position).as("request position").isLessThan(batch.size());
                assertThat(slots[position])
                        .as("request %d placed twice", position)
                        .isEqualTo(-1);
                slots[position] = slot;
            }
        }
        assertThat(slots).as("every request is placed").doesNotContain(-1);
        return slots;
    }

    /** Asserts that every request of the batch appears in exactly one parallel batch. */
    public static void assertIsPartition(BatchKeys batch, List<ParallelBatch> partition) {
        slotOf(batch, partition);
    }

    /** Number of pairs of requests that conflict under the batch's keys, by brute force. */
    public static int conflictingPairs(BatchKeys batch) {
        int count = 0;
        for (int later = 0; later < batch.size(); later++) {
            for (int earlier = 0; earlier < later; earlier++) {
                if (conflict(batch, earlier, later)) {
                    count++;
                }
            }
        }
        return count;
    }

    public static boolean conflict(BatchKeys batch, int first, int second) {
        return batch.requests().get(first).conflictsWith(batch.requests().get(second));
    }
}
