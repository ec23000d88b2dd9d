package io.eve.mixer.conflict;

import static io.eve.mixer.TestPartitions.conflict;
import static io.eve.mixer.TestPartitions.slotOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.eve.mixer.BatchKeys;
import io.eve.mixer.ParallelBatch;
import io.eve.mixer.TestBatches;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** The invariants of {@link KeyConflictMixer}, checked by brute force against the conflict relation. */
class KeyConflictMixerPropertyTest {
    @Property
    void shouldNeverRunConflictingRequestsTogether(
            @ForAll("batches") BatchKeys batch, @ForAll @IntRange(min = 1, max = 6) int cap) {
        int[] slot = slotOf(batch, KeyConflictMixer.capped(cap).mix(batch));

        for (int later = 0; later < batch.size(); later++) {
            for (int earlier = 0; earlier < later; earlier++) {
                if (conflict(batch, earlier, later)) {
                    assertThat(slot[earlier])
                            .as("request %d conflicts with earlier request %d", later, earlier)
                            .isLessThan(slot[later]);
                }
            }
        }
    }

    @Property
    void shouldKeepEveryParallelBatchWithinTheCap(
            @ForAll("batches") BatchKeys batch, @ForAll @IntRange(min = 1, max = 6) int cap) {
        assertThat(KeyConflictMixer.capped(cap).mix(batch))
                .allSatisfy(parallel -> assertThat(parallel.size()).isLessThanOrEqualTo(cap));
    }

    @Property
    void shouldPlaceEachRequestAtTheFirstParallelBatchWithRoomAfterItsLastConflict(
            @ForAll("batches") BatchKeys batch, @ForAll @IntRange(min = 1, max = 6) int cap) {
        List<ParallelBatch> partition = KeyConflictMixer.capped(cap).mix(batch);
        int[] slot = slotOf(batch, partition);

        for (int request = 0; request < batch.size(); request++) {
            int floor = firstAllowedSlot(batch, slot, request);
            assertThat(slot[request]).as("request %d", request).isGreaterThanOrEqualTo(floor);
            for (int skipped = floor; skipped < slot[request]; skipped++) {
                assertThat(membersBefore(partition.get(skipped), request))
                        .as("parallel batch %d was full when request %d skipped it", skipped, request)
                        .isEqualTo(cap);
            }
        }
    }

    @Property
    void shouldPlaceEachRequestRightAfterItsLastConflictWithoutACap(@ForAll("batches") BatchKeys batch) {
        int[] slot = slotOf(batch, KeyConflictMixer.unbounded().mix(batch));

        for (int request = 0; request < batch.size(); request++) {
            assertThat(slot[request]).isEqualTo(firstAllowedSlot(batch, slot, request));
        }
    }

    @Provide
    Arbitrary<BatchKeys> batches() {
        return TestBatches.batches();
    }

    private static int firstAllowedSlot(BatchKeys batch, int[] slot, int request) {
        int floor = 0;
        for (int earlier = 0; earlier < request; earlier++) {
            if (conflict(batch, earlier, request)) {
                floor = Math.max(floor, slot[earlier] + 1);
            }
        }
        return floor;
    }

    private static long membersBefore(ParallelBatch parallel, int request) {
        return parallel.requests().stream()
                .filter(position -> position < request)
                .count();
    }
}
