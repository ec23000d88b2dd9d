package io.eve.mixer;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.mixer.experiment.FalseNegativeMixer;
import io.eve.mixer.experiment.FalsePositiveMixer;
import io.eve.mixer.feedback.RollbackFeedbackMixer;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Every mixer must be a pure function of the batch: the property that keeps replicas in step (Eve §5.1). */
class MixerDeterminismTest {
    @Property(tries = 300)
    void shouldGiveTheSameResultWhenMixedAgain(@ForAll("mixers") Mixer mixer, @ForAll("batches") BatchKeys batch) {
        assertThat(mixer.mix(batch)).isEqualTo(mixer.mix(batch));
    }

    @Property(tries = 300)
    void shouldNotDependOnKeyHashCodes(@ForAll("mixers") Mixer mixer, @ForAll("batches") BatchKeys batch) {
        List<ParallelBatch> expected = mixer.mix(batch);

        assertThat(mixer.mix(TestBatches.salted(batch, 1))).isEqualTo(expected);
        assertThat(mixer.mix(TestBatches.salted(batch, 0x5bd1e995))).isEqualTo(expected);
    }

    @Property(tries = 300)
    void shouldNotDependOnTheSetImplementationOrItsOrder(
            @ForAll("mixers") Mixer mixer, @ForAll("batches") BatchKeys batch) {
        assertThat(mixer.mix(TestBatches.reinserted(batch))).isEqualTo(mixer.mix(batch));
    }

    @Property(tries = 300)
    void shouldPlaceEveryRequestExactlyOnce(@ForAll("mixers") Mixer mixer, @ForAll("batches") BatchKeys batch) {
        TestPartitions.assertIsPartition(batch, mixer.mix(batch));
    }

    @Provide
    Arbitrary<Mixer> mixers() {
        return Arbitraries.of(
                new SequentialMixer(),
                new GroupAllMixer(),
                KeyConflictMixer.unbounded(),
                KeyConflictMixer.capped(3),
                new FalseNegativeMixer(KeyConflictMixer.unbounded(), 0.3),
                new FalsePositiveMixer(KeyConflictMixer.capped(4), 0.2),
                new RollbackFeedbackMixer(KeyConflictMixer.unbounded(), 3));
    }

    @Provide
    Arbitrary<BatchKeys> batches() {
        return TestBatches.batches();
    }
}
