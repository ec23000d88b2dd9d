package io.eve.mixer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.mixer.conflict.KeyConflictMixer;
import java.util.List;
import org.junit.jupiter.api.Test;

class PartitionTest {
    @Test
    void shouldGiveTheBatchsOwnKeysForAMixerThatRewritesNone() {
        BatchKeys batch = TestBatches.batch(3, ConflictKeys.writing("a"), ConflictKeys.reading("a"));

        Partition partition = KeyConflictMixer.unbounded().partition(batch);

        assertThat(partition.keys()).isEqualTo(batch);
        assertThat(partition.parallelBatches())
                .isEqualTo(KeyConflictMixer.unbounded().mix(batch));
    }

    @Test
    void shouldRejectParallelBatchesThatDoNotPlaceEveryRequest() {
        BatchKeys batch = TestBatches.batch(3, ConflictKeys.none(), ConflictKeys.none());

        assertThatThrownBy(() -> new Partition(List.of(ParallelBatch.of(0)), batch))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the parallel batches place 1 requests, the batch holds 2");
    }
}
