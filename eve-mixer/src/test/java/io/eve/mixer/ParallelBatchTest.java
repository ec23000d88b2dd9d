package io.eve.mixer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ParallelBatchTest {
    @Test
    void shouldHoldPositionsInOrder() {
        ParallelBatch parallel = ParallelBatch.of(0, 3, 4);

        assertThat(parallel.requests()).containsExactly(0, 3, 4);
        assertThat(parallel.size()).isEqualTo(3);
    }

    @Test
    void shouldRejectAnEmptyParallelBatch() {
        assertThatThrownBy(() -> new ParallelBatch(List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a parallel batch holds at least one request");
    }

    @Test
    void shouldRejectPositionsOutOfOrderOrRepeated() {
        assertThatThrownBy(() -> ParallelBatch.of(2, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("strictly ascending, got [2, 1]");
        assertThatThrownBy(() -> ParallelBatch.of(1, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldRejectNegativePositions() {
        assertThatThrownBy(() -> ParallelBatch.of(-1, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
