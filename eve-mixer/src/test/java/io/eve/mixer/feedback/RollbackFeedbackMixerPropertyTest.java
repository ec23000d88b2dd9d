package io.eve.mixer.feedback;

import static io.eve.mixer.TestPartitions.conflict;
import static io.eve.mixer.TestPartitions.slotOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.eve.mixer.BatchKeys;
import io.eve.mixer.GroupAllMixer;
import io.eve.mixer.TestBatches;
import io.eve.mixer.conflict.KeyConflictMixer;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class RollbackFeedbackMixerPropertyTest {
    @Property(tries = 300)
    void shouldNotDependOnKeyHashCodesOnceItHasLearned(
            @ForAll("batches") BatchKeys rolledBack, @ForAll("batches") BatchKeys next) {
        RollbackFeedbackMixer plain = learnedFrom(rolledBack);
        RollbackFeedbackMixer salted = learnedFrom(TestBatches.salted(rolledBack, 0x2545f491));

        assertThat(salted.mix(TestBatches.salted(next, 0x2545f491))).isEqualTo(plain.mix(next));
        assertThat(plain.mix(TestBatches.reinserted(next))).isEqualTo(plain.mix(next));
    }

    @Property(tries = 300)
    void shouldStillKeepConflictingRequestsApartAndInOrder(
            @ForAll("batches") BatchKeys rolledBack, @ForAll("batches") BatchKeys next) {
        BatchKeys inWindow = new BatchKeys(rolledBack.seq() + 1, next.seed(), next.requests());
        int[] slot = slotOf(inWindow, learnedFrom(rolledBack).mix(inWindow));

        for (int later = 0; later < inWindow.size(); later++) {
            for (int earlier = 0; earlier < later; earlier++) {
                if (conflict(inWindow, earlier, later)) {
                    assertThat(slot[earlier]).isLessThan(slot[later]);
                }
            }
        }
    }

    @Provide
    Arbitrary<BatchKeys> batches() {
        return TestBatches.batches(20);
    }

    /** A mixer told that {@code rolledBack}, run all in one parallel batch, diverged. */
    private static RollbackFeedbackMixer learnedFrom(BatchKeys rolledBack) {
        RollbackFeedbackMixer mixer = new RollbackFeedbackMixer(KeyConflictMixer.unbounded(), 3);
        mixer.onRollback(rolledBack, new GroupAllMixer().mix(rolledBack));
        return mixer;
    }
}
