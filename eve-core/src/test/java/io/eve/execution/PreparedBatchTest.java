package io.eve.execution;

import static io.eve.execution.OverlappingStageTest.assertSame;
import static io.eve.execution.OverlappingStageTest.randomBatches;
import static io.eve.execution.OverlappingStageTest.reference;
import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Request;
import io.eve.batch.Batch;
import io.eve.mixer.conflict.KeyConflictMixer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A batch offered while the one before it runs is planned then (ExecutionStage#offer, overlap off) and
 * executed as planned only when the batch executed is the one offered, in the same mode.
 */
class PreparedBatchTest {
    private final ExecutorService pool = Executors.newFixedThreadPool(4);

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    private ExecutionStage stage(int workMillis) {
        TestCells cells = new TestCells(200);
        cells.workMillis = workMillis;
        return new ExecutionStage(cells, KeyConflictMixer.unbounded(), pool);
    }

    @Test
    void shouldRunOfferedBatchesAsPlannedWithTheSameTokensAndReplies() {
        List<Batch> batches = randomBatches(11, 30, 24, 200);
        ExecutionStage stage = stage(2);
        List<Executed> actual = new ArrayList<>();
        for (int i = 0; i < batches.size(); i++) {
            if (i + 1 < batches.size()) {
                stage.offer(batches.get(i + 1), false); // taken while batch i's requests run
            }
            actual.add(stage.execute(batches.get(i), false));
        }
        assertSame(actual, reference(() -> new TestCells(200), batches));
        assertThat(stage.preparedBatches()).as("batches run as planned").isGreaterThan(batches.size() / 2);
        assertThat(stage.overlappedRequests()).as("overlap is off").isZero();
    }

    @Test
    void shouldPlanEachOfSeveralBatchesOfferedAtOnce() {
        // A pipelined replica hands over several batches before the first one ends; each is planned in turn.
        List<Batch> batches = randomBatches(14, 30, 24, 200);
        ExecutionStage stage = stage(2);
        batches.forEach(batch -> stage.offer(batch, false));
        List<Executed> actual = new ArrayList<>();
        for (Batch batch : batches) {
            actual.add(stage.execute(batch, false));
        }
        assertSame(actual, reference(() -> new TestCells(200), batches));
        assertThat(stage.preparedBatches()).as("batches run as planned").isGreaterThan(batches.size() / 2);
    }

    @Test
    void shouldPlanAgainWhenTheBatchExecutedIsNotTheOneOffered() {
        List<Batch> batches = randomBatches(12, 2, 24, 200);
        Batch second = batches.get(1);
        List<Request> other = new ArrayList<>(second.requests());
        other.remove(0);
        Batch stale = new Batch(second.seq(), second.timestampMillis(), second.seed(), other);
        ExecutionStage stage = stage(2);
        stage.offer(stale, false);
        List<Executed> actual = List.of(stage.execute(batches.get(0), false), stage.execute(second, false));
        assertSame(actual, reference(() -> new TestCells(200), batches));
        assertThat(stage.preparedBatches()).isZero();
    }

    @Test
    void shouldPlanAgainWhenAnOfferedBatchRunsSequentially() {
        List<Batch> batches = randomBatches(13, 2, 24, 200);
        ExecutionStage expected = stage(0);
        List<Executed> reference =
                List.of(expected.execute(batches.get(0), false), expected.execute(batches.get(1), true));
        ExecutionStage stage = stage(2);
        stage.offer(batches.get(1), false);
        List<Executed> actual = List.of(stage.execute(batches.get(0), false), stage.execute(batches.get(1), true));
        assertSame(actual, reference);
        assertThat(actual.get(1).parallelBatches())
                .as("one parallel batch per request")
                .isEqualTo(24);
        assertThat(stage.preparedBatches()).isZero();
    }
}
