package io.eve.mixer.experiment;

import static io.eve.mixer.TestPartitions.conflict;
import static io.eve.mixer.TestPartitions.conflictingPairs;
import static io.eve.mixer.TestPartitions.render;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.mixer.BatchKeys;
import io.eve.mixer.ConflictKeys;
import io.eve.mixer.Mixer;
import io.eve.mixer.ParallelBatch;
import io.eve.mixer.Partition;
import io.eve.mixer.StubMixer;
import io.eve.mixer.TestBatches;
import io.eve.mixer.conflict.KeyConflictMixer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FalsePositiveMixerTest {
    @Property
    void shouldEqualTheDecoratedMixerAtRateZero(
            @ForAll("batches") BatchKeys batch, @ForAll @IntRange(min = 1, max = 5) int cap) {
        Mixer plain = KeyConflictMixer.capped(cap);

        assertThat(new FalsePositiveMixer(plain, 0.0).mix(batch)).isEqualTo(plain.mix(batch));
    }

    @Property
    void shouldOnlyAddConflicts(
            @ForAll("batches") BatchKeys batch, @ForAll @DoubleRange(min = 0, max = 1) double rate) {
        BatchKeys rewritten = new FalsePositiveMixer(new StubMixer(), rate).rewrite(batch);

        for (int second = 0; second < batch.size(); second++) {
            for (int first = 0; first < second; first++) {
                if (conflict(batch, first, second)) {
                    assertThat(conflict(rewritten, first, second)).isTrue();
                }
            }
        }
    }

    @Property
    void shouldGiveTheSameResultForTheSameSeed(
            @ForAll("batches") BatchKeys batch, @ForAll @DoubleRange(min = 0, max = 1) double rate) {
        Mixer mixer = new FalsePositiveMixer(KeyConflictMixer.unbounded(), rate);

        assertThat(new FalsePositiveMixer(KeyConflictMixer.unbounded(), rate).mix(batch))
                .isEqualTo(mixer.mix(batch));
    }

    @Test
    void shouldMakeOtherMistakesForOtherSeeds() {
        Mixer mixer = new FalsePositiveMixer(KeyConflictMixer.unbounded(), 0.2);
        Set<List<ParallelBatch>> partitions = new HashSet<>();
        for (long seed = 0; seed < 10; seed++) {
            partitions.add(mixer.mix(independent(seed, 12)));
        }

        assertThat(partitions).hasSizeGreaterThan(5);
    }

    @Property
    void shouldHandExecutionTheKeysItMixedBy(
            @ForAll("batches") BatchKeys batch, @ForAll @DoubleRange(min = 0, max = 1) double rate) {
        FalsePositiveMixer mixer = new FalsePositiveMixer(KeyConflictMixer.unbounded(), rate);

        Partition partition = mixer.partition(batch);

        assertThat(partition.keys()).isEqualTo(mixer.rewrite(batch));
        assertThat(partition.parallelBatches()).isEqualTo(mixer.mix(batch));
    }

    @Test
    void shouldMakeEveryPairConflictForExecutionAtRateOne() {
        BatchKeys batch = independent(0, 4);

        Partition partition = new FalsePositiveMixer(KeyConflictMixer.unbounded(), 1.0).partition(batch);

        assertThat(conflictingPairs(batch)).isZero();
        assertThat(conflictingPairs(partition.keys())).isEqualTo(6);
    }

    @Test
    void shouldHandExecutionTheKeysOfBothDecoratorsWhenStacked() {
        BatchKeys batch = TestBatches.crowded(5, 20, 6);
        FalseNegativeMixer misses = new FalseNegativeMixer(KeyConflictMixer.unbounded(), 0.3);
        FalsePositiveMixer invents = new FalsePositiveMixer(misses, 0.1);

        assertThat(invents.partition(batch).keys()).isEqualTo(misses.rewrite(invents.rewrite(batch)));
    }

    @Test
    void shouldSerializeEverythingAtRateOne() {
        BatchKeys batch = independent(0, 4);

        assertThat(render(new FalsePositiveMixer(KeyConflictMixer.unbounded(), 1.0).mix(batch)))
                .isEqualTo("0 | 1 | 2 | 3");
    }

    @ParameterizedTest
    @ValueSource(doubles = {0.001, 0.01, 0.1, 0.5})
    void shouldInventConflictsBetweenIndependentPairsAtTheGivenRate(double rate) {
        FalsePositiveMixer mixer = new FalsePositiveMixer(new StubMixer(), rate);
        long independentPairs = 0;
        long invented = 0;
        for (long seed = 0; seed < 300; seed++) {
            BatchKeys batch = TestBatches.crowded(seed, 40, 20);
            int before = conflictingPairs(batch);
            independentPairs += 40 * 39 / 2 - before;
            invented += conflictingPairs(mixer.rewrite(batch)) - before;
        }

        double tolerance = 5 * Math.sqrt(rate * (1 - rate) / independentPairs);
        assertThat((double) invented / independentPairs).isBetween(rate - tolerance, rate + tolerance);
    }

    @Test
    void shouldTellTheDecoratedMixerAboutARollbackWithTheKeysItSaw() {
        StubMixer inner = new StubMixer();
        Mixer mixer = new FalsePositiveMixer(inner, 0.5);
        BatchKeys batch = independent(3, 10);

        mixer.onRollback(batch, mixer.mix(batch));

        assertThat(inner.rolledBack).containsExactly(inner.mixed.get(0));
    }

    @Test
    void shouldRejectRatesOutsideTheUnitInterval() {
        Mixer inner = KeyConflictMixer.unbounded();

        assertThatThrownBy(() -> new FalsePositiveMixer(inner, 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a false-positive rate is a probability in [0, 1], got 2.0");
        assertThatThrownBy(() -> new FalsePositiveMixer(inner, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FalsePositiveMixer(inner, Double.NaN))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Provide
    Arbitrary<BatchKeys> batches() {
        return TestBatches.batches();
    }

    /** Requests that each write a key of their own, so no pair conflicts. */
    private static BatchKeys independent(long seed, int requests) {
        List<ConflictKeys> keys = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            keys.add(ConflictKeys.writing("own" + i));
        }
        return new BatchKeys(1, seed, keys);
    }
}
