package io.eve.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.Request;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BatcherTest {
    private final AtomicLong seeds = new AtomicLong(100);
    private final Batcher batcher = new Batcher(3, 1_000, 1, seeds::incrementAndGet);

    private static Request request(long n) {
        return new Request(7, n, new byte[] {(byte) n});
    }

    @Test
    void shouldCloseABatchWhenItIsFull() {
        assertThat(batcher.offer(request(1), 0, 10)).isEmpty();
        assertThat(batcher.offer(request(2), 0, 10)).isEmpty();
        Optional<Batch> batch = batcher.offer(request(3), 0, 10);
        assertThat(batch).isPresent();
        assertThat(batch.get().seq()).isEqualTo(1);
        assertThat(batch.get().requests()).extracting(Request::requestSeq).containsExactly(1L, 2L, 3L);
        assertThat(batch.get().seed()).isEqualTo(101);
        assertThat(batcher.pendingRequests()).isZero();
    }

    @Test
    void shouldCloseAPartialBatchWhenTheStageIdlesOrTheDelayPasses() {
        batcher.offer(request(1), 500, 10);
        assertThat(batcher.onTick(1_000, 11)).as("waited 500 of 1000 ns").isEmpty();
        assertThat(batcher.onTick(1_500, 12))
                .hasValueSatisfying(b -> assertThat(b.timestampMillis()).isEqualTo(12));
        batcher.offer(request(2), 2_000, 13);
        assertThat(batcher.onIdle(14))
                .hasValueSatisfying(b -> assertThat(b.seq()).isEqualTo(2));
        assertThat(batcher.onIdle(15)).isEmpty();
        assertThat(batcher.onTick(9_000, 16)).isEmpty();
    }

    @Test
    void shouldContinueNumberingAfterAResume() {
        batcher.resumeAfter(41);
        batcher.offer(request(1), 0, 1);
        assertThat(batcher.onIdle(1))
                .hasValueSatisfying(b -> assertThat(b.seq()).isEqualTo(42));
    }

    @Test
    void shouldRejectBadLimits() {
        assertThatThrownBy(() -> new Batcher(0, 1, 1, () -> 0)).hasMessageContaining("maxBatchSize");
        assertThatThrownBy(() -> new Batcher(1, -1, 1, () -> 0)).hasMessageContaining("maxDelayNanos");
    }
}
