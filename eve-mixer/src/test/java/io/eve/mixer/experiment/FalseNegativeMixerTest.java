package io.eve.mixer.experiment;

import static io.eve.mixer.TestPartitions.conflict;
import static io.eve.mixer.TestPartitions.conflictingPairs;
import static io.eve.mixer.TestPartitions.render;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.mixer.BatchKeys;
import io.eve.mixer.Mixer;
import io.eve.mixer.ParallelBatch;
import io.eve.mixer.Partition;
import io.eve.mixer.StubMixer;
import io.eve.mixer.TestBatches;
import io.eve.mixer.conflict.KeyConflictMixer;
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

class FalseNegativeMixerTest {
    @Property
    void shouldEqualTheDecoratedMixerAtRateZero(
            @ForAll("batches") BatchKeys batch, @ForAll @IntRange(min = 1, max = 5) int cap) {
        Mixer plain = KeyConflictMixer.capped(cap);

        assertThat(new FalseNegativeMixer(plain, 0.0).mix(batch)).isEqualTo(plain.mix(batch));
    }

    @Property
    void shouldOnlyRemoveConflicts(
            @ForAll("batches") BatchKeys batch, @ForAll @DoubleRange(min = 0, max = 1) double rate) {
        BatchKeys rewritten = new FalseNegativeMixer(new StubMixer(), rate).rewrite(batch);

        for (int second = 0; second < batch.size(); second++) {
            for (int first = 0; first < second; first++) {
                if (conflict(rewritten, first, second)) {
                    assertThat(conflict(batch, first, second)).isTrue();
                }
            }
        }
    }

    @Property
    void shouldGiveTheSameResultForTheSameSeed(
            @ForAll("batches") BatchKeys batch, @ForAll @DoubleRange(min = 0, max = 1) double rate) {
        Mixer mixer = new FalseNegativeMixer(KeyConflictMixer.unbounded(), rate);

        assertThat(new FalseNegativeMixer(KeyConflictMixer.unbounded(), rate).mix(batch))
                .isEqualTo(mixer.mix(batch));
    }

    @Test
    void shouldMakeOtherMistakesForOtherSeeds() {
        Mixer mixer = new FalseNegativeMixer(KeyConflictMixer.unbounded(), 0.5);
        Set<List<ParallelBatch>> partitions = new HashSet<>();
        for (long seed = 0; seed < 10; seed++) {
            partitions.add(mixer.mix(TestBatches.crowded(seed, 20, 4)));
        }

        assertThat(partitions).hasSizeGreaterThan(5);
    }

    @Property
    void shouldHandExecutionTheKeysItMixedBy(
            @ForAll("batches") BatchKeys batch, @ForAll @DoubleRange(min = 0, max = 1) double rate) {
        FalseNegativeMixer mixer = new FalseNegativeMixer(KeyConflictMixer.unbounded(), rate);

        Partition partition = mixer.partition(batch);

        assertThat(partition.keys()).isEqualTo(mixer.rewrite(batch));
        assertThat(partition.parallelBatches()).isEqualTo(mixer.mix(batch));
    }

    @Test
    void shouldLeaveExecutionNoConflictToOrderByAtRateOne() {
        BatchKeys batch = TestBatches.crowded(0, 6, 2);

        Partition partition = new FalseNegativeMixer(KeyConflictMixer.unbounded(), 1.0).partition(batch);

        assertThat(conflictingPairs(batch)).isPositive();
        assertThat(conflictingPairs(partition.keys())).isZero();
    }

    @Test
    void shouldIgnoreEveryConflictAtRateOne() {
        BatchKeys batch = TestBatches.crowded(0, 6, 2);

        assertThat(render(new FalseNegativeMixer(KeyConflictMixer.unbounded(), 1.0).mix(batch)))
                .isEqualTo("0 1 2 3 4 5");
    }

    @ParameterizedTest
    @ValueSource(doubles = {0.001, 0.01, 0.1, 0.5})
    void shouldMissConflictingPairsAtTheGivenRate(double rate) {
        FalseNegativeMixer mixer = new FalseNegativeMixer(new StubMixer(), rate);
        long conflicting = 0;
        long missed = 0;
        for (long seed = 0; seed < 300; seed++) {
            BatchKeys batch = TestBatches.crowded(seed, 40, 6);
            int before = conflictingPairs(batch);
            conflicting += before;
            missed += before - conflictingPairs(mixer.rewrite(batch));
        }

        double tolerance = 5 * Math.sqrt(rate * (1 - rate) / conflicting);
        assertThat((double) missed / conflicting).isBetween(rate - tolerance, rate + tolerance);
    }

    @Test
    void shouldTellTheDecoratedMixerAboutARollbackWithTheKeysItSaw() {
        StubMixer inner = new StubMixer();
        Mixer mixer = new FalseNegativeMixer(inner, 0.5);
        BatchKeys batch = TestBatches.crowded(3, 10, 3);

        mixer.onRollback(batch, mixer.mix(batch));

        assertThat(inner.rolledBack).containsExactly(inner.mixed.get(0));
    }

    @Test
    void shouldRejectRatesOutsideTheUnitInterval() {
        Mixer inner = KeyConflictMixer.unbounded();

        assertThatThrownBy(() -> new FalseNegativeMixer(inner, 1.5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a false-negative rate is a probability in [0, 1], got 1.5");
        assertThatThrownBy(() -> new FalseNegativeMixer(inner, -0.01)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FalseNegativeMixer(inner, Double.NaN))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldRejectAMissingInnerMixer() {
        assertThatThrownBy(() -> new FalseNegativeMixer(null, 0.1))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("inner mixer must not be null");
    }

    @Provide
    Arbitrary<BatchKeys> batches() {
        return TestBatches.batches();
    }
}
