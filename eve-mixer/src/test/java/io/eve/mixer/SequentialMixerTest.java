package io.eve.mixer;

import static io.eve.mixer.TestBatches.batch;
import static io.eve.mixer.TestPartitions.render;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SequentialMixerTest {
    private final Mixer mixer = new SequentialMixer();

    @Test
    void shouldRunEveryRequestAloneInBatchOrder() {
        BatchKeys batch = batch(ConflictKeys.none(), ConflictKeys.reading("a"), ConflictKeys.none());

        assertThat(render(mixer.mix(batch))).isEqualTo("0 | 1 | 2");
    }

    @Test
    void shouldMixAnEmptyBatchIntoNothing() {
        assertThat(mixer.mix(batch())).isEmpty();
    }
}
