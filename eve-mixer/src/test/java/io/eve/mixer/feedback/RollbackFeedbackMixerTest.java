package io.eve.mixer.feedback;

import static io.eve.mixer.TestBatches.batch;
import static io.eve.mixer.TestPartitions.render;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.mixer.BatchKeys;
import io.eve.mixer.ConflictKeys;
import io.eve.mixer.Mixer;
import io.eve.mixer.ParallelBatch;
import io.eve.mixer.StubMixer;
import io.eve.mixer.conflict.KeyConflictMixer;
import java.util.List;
import org.junit.jupiter.api.Test;

class RollbackFeedbackMixerTest {
    private final RollbackFeedbackMixer mixer = new RollbackFeedbackMixer(KeyConflictMixer.unbounded(), 2);

    @Test
    void shouldMixLikeTheDecoratedMixerBeforeAnyRollback() {
        BatchKeys next = nextBatch(11);

        assertThat(mixer.mix(next)).isEqualTo(KeyConflictMixer.unbounded().mix(next));
    }

    @Test
    void shouldSerializeRequestsTouchingKeysThatRanInParallelWhenTheBatchRolledBack() {
        rollBackBatchTenWithAAndBInParallel();

        // Reads of "a" and "b" would run together; after the rollback they run one at a time, "c" does not.
        assertThat(render(mixer.mix(nextBatch(11)))).isEqualTo("0 3 | 1 | 2");
    }

    @Test
    void shouldHandExecutionTheCoarsenedKeys() {
        rollBackBatchTenWithAAndBInParallel();
        BatchKeys next = nextBatch(11);

        BatchKeys ordering = mixer.partition(next).keys();

        // The two reads of "a" share no write, but after the rollback they must also wait for each other when
        // they run, not only sit in different parallel batches.
        assertThat(next.requests().get(0).conflictsWith(next.requests().get(1))).isFalse();
        assertThat(ordering.requests().get(0).conflictsWith(ordering.requests().get(1)))
                .isTrue();
        assertThat(ordering.requests().get(0).conflictsWith(ordering.requests().get(3)))
                .isFalse();
    }

    @Test
    void shouldCoarsenTheRolledBackSeqAndTheWindowAfterIt() {
        rollBackBatchTenWithAAndBInParallel();

        assertThat(render(mixer.mix(nextBatch(10)))).isEqualTo("0 3 | 1 | 2");
        assertThat(render(mixer.mix(nextBatch(12)))).isEqualTo("0 3 | 1 | 2");
    }

    @Test
    void shouldForgetTheRollbackAfterTheWindow() {
        rollBackBatchTenWithAAndBInParallel();

        assertThat(render(mixer.mix(nextBatch(13)))).isEqualTo("0 1 2 3");
    }

    @Test
    void shouldNotTouchBatchesBeforeTheRollback() {
        rollBackBatchTenWithAAndBInParallel();

        assertThat(render(mixer.mix(nextBatch(9)))).isEqualTo("0 1 2 3");
    }

    @Test
    void shouldNotSuspectRequestsThatRanAloneInTheirParallelBatch() {
        BatchKeys rolledBack = batch(10, ConflictKeys.writing("a"), ConflictKeys.writing("b"));

        mixer.onRollback(rolledBack, List.of(ParallelBatch.of(0), ParallelBatch.of(1)));

        assertThat(render(mixer.mix(nextBatch(11)))).isEqualTo("0 1 2 3");
        assertThat(mixer.ruleCount()).isZero();
    }

    @Test
    void shouldKeepTheSuspectsOfDifferentRollbacksApart() {
        mixer.onRollback(batch(10, ConflictKeys.writing("a"), ConflictKeys.writing("b")), together(2));
        mixer.onRollback(batch(11, ConflictKeys.writing("c"), ConflictKeys.writing("d")), together(2));

        BatchKeys next = batch(12, ConflictKeys.reading("a"), ConflictKeys.reading("c"), ConflictKeys.reading("d"));

        assertThat(render(mixer.mix(next))).isEqualTo("0 1 | 2");
    }

    @Test
    void shouldWidenTheSuspectsWhenTheSameSeqRollsBackAgain() {
        mixer.onRollback(batch(10, ConflictKeys.writing("a"), ConflictKeys.writing("b")), together(2));
        mixer.onRollback(batch(10, ConflictKeys.writing("c"), ConflictKeys.writing("d")), together(2));

        BatchKeys next = batch(11, ConflictKeys.reading("a"), ConflictKeys.reading("c"));

        assertThat(render(mixer.mix(next))).isEqualTo("0 | 1");
        assertThat(mixer.ruleCount()).isEqualTo(1);
    }

    @Test
    void shouldForgetRulesWhoseWindowEndedBeforeANewRollback() {
        mixer.onRollback(batch(10, ConflictKeys.writing("a"), ConflictKeys.writing("b")), together(2));
        mixer.onRollback(batch(12, ConflictKeys.writing("c"), ConflictKeys.writing("d")), together(2));
        assertThat(mixer.ruleCount()).isEqualTo(2);

        mixer.onRollback(batch(13, ConflictKeys.writing("e"), ConflictKeys.writing("f")), together(2));

        assertThat(mixer.ruleCount()).isEqualTo(2);
    }

    @Test
    void shouldGiveTheSameResultsToReplicasThatSeeTheSameRollbacks() {
        RollbackFeedbackMixer other = new RollbackFeedbackMixer(KeyConflictMixer.unbounded(), 2);
        BatchKeys rolledBack = batch(10, ConflictKeys.writing("a"), ConflictKeys.reading("b"));
        List<ParallelBatch> partition = mixer.mix(rolledBack);

        mixer.onRollback(rolledBack, partition);
        other.onRollback(rolledBack, partition);

        for (long seq = 9; seq <= 13; seq++) {
            assertThat(other.mix(nextBatch(seq))).isEqualTo(mixer.mix(nextBatch(seq)));
        }
    }

    @Test
    void shouldTellTheDecoratedMixerAboutARollbackWithTheKeysItSaw() {
        StubMixer inner = new StubMixer();
        Mixer decorated = new RollbackFeedbackMixer(inner, 2);
        decorated.onRollback(batch(10, ConflictKeys.writing("a"), ConflictKeys.writing("b")), together(2));
        BatchKeys again = batch(10, ConflictKeys.writing("a"), ConflictKeys.writing("c"));

        decorated.onRollback(again, decorated.mix(again));

        assertThat(inner.rolledBack.get(1)).isEqualTo(inner.mixed.get(0)).isNotEqualTo(again);
    }

    @Test
    void shouldRejectAPartitionThatNamesAMissingRequest() {
        BatchKeys rolledBack = batch(10, ConflictKeys.writing("a"));

        assertThatThrownBy(() -> mixer.onRollback(rolledBack, together(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("partition names request 1 but batch 10 has 1 requests");
    }

    @Test
    void shouldRejectAnEmptyWindow() {
        assertThatThrownBy(() -> new RollbackFeedbackMixer(KeyConflictMixer.unbounded(), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the feedback window is at least 1 batch, got 0");
    }

    private void rollBackBatchTenWithAAndBInParallel() {
        BatchKeys rolledBack = batch(10, ConflictKeys.writing("a"), ConflictKeys.writing("b"));
        List<ParallelBatch> partition = mixer.mix(rolledBack);
        assertThat(render(partition)).isEqualTo("0 1");

        mixer.onRollback(rolledBack, partition);
    }

    private static BatchKeys nextBatch(long seq) {
        return batch(
                seq,
                ConflictKeys.reading("a"),
                ConflictKeys.reading("a"),
                ConflictKeys.reading("b"),
                ConflictKeys.writing("c"));
    }

    private static List<ParallelBatch> together(int requests) {
        int[] all = new int[requests];
        for (int i = 0; i < requests; i++) {
            all[i] = i;
        }
        return List.of(ParallelBatch.of(all));
    }
}
