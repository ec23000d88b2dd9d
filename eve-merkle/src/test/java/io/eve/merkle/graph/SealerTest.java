package io.eve.merkle.graph;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

class SealerTest {
    @Property(tries = 200)
    void shouldSortDirtyIdsAsAComparisonSortDoes(
            @ForAll long seed,
            @ForAll @IntRange(min = 0, max = 3000) int count,
            @ForAll @LongRange(min = 1, max = Integer.MAX_VALUE) long idRange) {
        Random random = new Random(seed);
        long[] keys = new long[count];
        long maxId = 0;
        for (int i = 0; i < count; i++) {
            long id = (long) (random.nextDouble() * idRange); // repeated ids too, where the range is small
            keys[i] = (id << 32) | i;
            maxId = Math.max(maxId, id);
        }
        long[] expected = keys.clone();
        Arrays.sort(expected);

        assertThat(Sealer.sortByHighHalf(keys, maxId)).containsExactly(expected);
    }
}
