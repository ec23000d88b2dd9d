package io.eve.mixer;

import static io.eve.mixer.TestBatches.batch;
import static io.eve.mixer.TestPartitions.render;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GroupAllMixerTest {
    private final Mixer mixer = new GroupAllMixer();

    @Test
    void shouldPutEvenConflictingRequestsInOneParallelBatch() {
        BatchKeys batch = batch(ConflictKeys.writing("a"), ConflictKeys.writing("a"), ConflictKeys.reading("a"));

        assertThat(render(mixer.mix(batch))).isEqualTo("0 1 2");
    }

    @Test
    void shouldMixAnEmptyBatchIntoNothing() {
        assertThat(mixer.mix(batch())).isEmpty();
    }
}
