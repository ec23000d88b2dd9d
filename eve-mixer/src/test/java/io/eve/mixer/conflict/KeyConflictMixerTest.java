package io.eve.mixer.conflict;

import static io.eve.mixer.TestBatches.batch;
import static io.eve.mixer.TestPartitions.render;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.mixer.BatchKeys;
import io.eve.mixer.ConflictKeys;
import io.eve.mixer.Mixer;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class KeyConflictMixerTest {
    private final Mixer unbounded = KeyConflictMixer.unbounded();

    @Test
    void shouldRunRequestsOnDisjointKeysTogether() {
        BatchKeys batch = batch(ConflictKeys.writing("a"), ConflictKeys.writing("b"), ConflictKeys.writing("c"));

        assertThat(render(unbounded.mix(batch))).isEqualTo("0 1 2");
    }

    @Test
    void shouldRunReadersOfOneKeyTogether() {
        BatchKeys batch = batch(ConflictKeys.reading("item"), ConflictKeys.reading("item", "author"));

        assertThat(render(unbounded.mix(batch))).isEqualTo("0 1");
    }

    @Test
    void shouldSeparateWritersOfOneKey() {
        BatchKeys batch = batch(ConflictKeys.writing("a"), ConflictKeys.writing("a"), ConflictKeys.writing("a"));

        assertThat(render(unbounded.mix(batch))).isEqualTo("0 | 1 | 2");
    }

    @Test
    void shouldSeparateAReaderFromAnEarlierWriter() {
        BatchKeys batch = batch(ConflictKeys.writing("a"), ConflictKeys.reading("a"));

        assertThat(render(unbounded.mix(batch))).isEqualTo("0 | 1");
    }

    @Test
    void shouldFillTheFirstParallelBatchThatFits() {
        // 2 conflicts with 0, so it opens batch 1; 3 touches nothing held by batch 0 and goes back there.
        BatchKeys batch = batch(
                ConflictKeys.writing("a"),
                ConflictKeys.writing("b"),
                ConflictKeys.writing("a"),
                ConflictKeys.writing("c"));

        assertThat(render(unbounded.mix(batch))).isEqualTo("0 1 3 | 2");
    }

    @Test
    void shouldNeverPlaceARequestBeforeAnEarlierRequestItConflictsWith() {
        // Plain first-fit would put 2 in batch 0 next to 0, ahead of 1 which wrote "b" before 2 read it.
        BatchKeys batch = batch(ConflictKeys.writing("a"), ConflictKeys.writing("a", "b"), ConflictKeys.reading("b"));

        assertThat(render(unbounded.mix(batch))).isEqualTo("0 | 1 | 2");
    }

    @Test
    void shouldGroupReadersAfterTheirWriter() {
        BatchKeys batch = batch(
                ConflictKeys.writing("y"),
                ConflictKeys.reading("y"),
                ConflictKeys.writing("z"),
                ConflictKeys.reading("y"));

        assertThat(render(unbounded.mix(batch))).isEqualTo("0 2 | 1 3");
    }

    @Test
    void shouldOpenANewParallelBatchWhenTheCapIsReached() {
        BatchKeys batch = batch(
                ConflictKeys.writing("a"),
                ConflictKeys.writing("b"),
                ConflictKeys.writing("c"),
                ConflictKeys.writing("d"),
                ConflictKeys.writing("a"));

        assertThat(render(KeyConflictMixer.capped(2).mix(batch))).isEqualTo("0 1 | 2 3 | 4");
    }

    @Test
    void shouldSkipFullParallelBatchesAfterTheFirstAllowedOne() {
        BatchKeys batch = batch(
                ConflictKeys.writing("a"),
                ConflictKeys.writing("a"),
                ConflictKeys.writing("b"),
                ConflictKeys.writing("c"),
                ConflictKeys.writing("a"),
                ConflictKeys.none());

        assertThat(render(KeyConflictMixer.capped(2).mix(batch))).isEqualTo("0 2 | 1 3 | 4 5");
    }

    @Test
    void shouldTreatKeylessRequestsAsConflictingWithNothing() {
        BatchKeys batch = batch(ConflictKeys.writing("a"), ConflictKeys.writing("a"), ConflictKeys.none());

        assertThat(render(unbounded.mix(batch))).isEqualTo("0 2 | 1");
    }

    @Test
    void shouldMixAnEmptyBatchIntoNothing() {
        assertThat(unbounded.mix(batch())).isEmpty();
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void shouldStayNearLinearWhenEveryParallelBatchIsFull() {
        // With a cap of 1, a scan over full parallel batches would visit about 2 * 10^10 of them.
        int requests = 200_000;
        BatchKeys batch = new BatchKeys(0, 0, Collections.nCopies(requests, ConflictKeys.none()));

        assertThat(KeyConflictMixer.capped(1).mix(batch)).hasSize(requests);
    }

    @Test
    void shouldRejectACapBelowOne() {
        assertThatThrownBy(() -> KeyConflictMixer.capped(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a parallel batch must be allowed at least 1 request, got a cap of 0");
        assertThatThrownBy(() -> KeyConflictMixer.capped(-3)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldUseTheCapAsTheSizeOfEveryFullParallelBatch() {
        List<ConflictKeys> requests = Collections.nCopies(7, ConflictKeys.reading("shared"));

        assertThat(render(KeyConflictMixer.capped(3).mix(new BatchKeys(0, 0, requests))))
                .isEqualTo("0 1 2 | 3 4 5 | 6");
    }
}
