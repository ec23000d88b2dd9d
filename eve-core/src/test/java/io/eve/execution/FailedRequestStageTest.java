package io.eve.execution;

import static io.eve.execution.OverlappingStageTest.assertSame;
import static io.eve.execution.OverlappingStageTest.reference;
import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Reply;
import io.eve.Request;
import io.eve.batch.Batch;
import io.eve.mixer.conflict.KeyConflictMixer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A request that writes several objects and then throws: its error reply comes back and the state is
 * the one of a run in which it threw before writing anything, whether its batch runs in parallel, in
 * order, or overlapping the next one. Every comparison is of tokens, which bind the state root and the
 * replies.
 */
@Timeout(60)
class FailedRequestStageTest {
    private static final int THREADS = 4;
    private static final int CELLS = 64;

    private final ExecutorService pool = Executors.newFixedThreadPool(THREADS);

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    /**
     * Random batches of sets, copies and requests that write two cells and then throw ({@code verb}
     * "fail"), or throw at once ("refuse"): the same seed gives the same batches but for that verb.
     */
    static List<Batch> batchesWithFailures(long seed, String verb) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] nextSeq = new long[32];
        List<Batch> batches = new ArrayList<>();
        for (int b = 1; b <= 30; b++) {
            List<Request> requests = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                int client = random.nextInt(nextSeq.length);
                int kind = random.nextInt(4);
                int first = random.nextInt(CELLS);
                int second = random.nextInt(CELLS);
                int value = random.nextInt(1000);
                String payload = switch (kind) {
                    case 0 -> verb + ":" + first + ":" + second + ":" + value;
                    case 1 -> "copy:" + first + ":" + second;
                    default -> "set:" + first + ":" + value;
                };
                requests.add(new Request(client, ++nextSeq[client], TestCells.text(payload)));
            }
            batches.add(new Batch(b, 1000 + b, b * 17L, requests));
        }
        return batches;
    }

    private static List<Executed> runAll(ExecutionStage stage, List<Batch> batches, boolean sequential) {
        List<Executed> executed = new ArrayList<>();
        for (Batch batch : batches) {
            executed.add(stage.execute(batch, sequential));
        }
        return executed;
    }

    private static long errors(List<Executed> executed) {
        return executed.stream()
                .flatMap(e -> e.replies().stream())
                .filter(Reply::error)
                .count();
    }

    @Test
    void shouldLeaveNoTraceOfAFailedRequestInParallelBatches() {
        List<Executed> expected = reference(() -> new TestCells(CELLS), batchesWithFailures(3, "refuse"));
        ExecutionStage stage = new ExecutionStage(new TestCells(CELLS), KeyConflictMixer.unbounded(), pool);
        List<Executed> actual = runAll(stage, batchesWithFailures(3, "fail"), false);
        assertSame(actual, expected);
        assertThat(errors(actual)).isGreaterThan(50);
        assertThat(actual.stream().mapToInt(Executed::parallelBatches).max().orElseThrow())
                .as("parallel batches per batch")
                .isLessThan(20);
    }

    @Test
    void shouldLeaveNoTraceOfAFailedRequestWhenBatchesOverlap() {
        List<Batch> batches = batchesWithFailures(5, "fail");
        List<Executed> expected = reference(() -> new TestCells(CELLS), batchesWithFailures(5, "refuse"));
        TestCells cells = new TestCells(CELLS);
        cells.workMillis = 1;
        ExecutionStage stage = new ExecutionStage(cells, KeyConflictMixer.unbounded(), pool);
        stage.overlap(THREADS, seq -> {
            if (seq < batches.size()) {
                stage.offer(batches.get((int) seq), false);
            }
        });
        List<Executed> actual = runAll(stage, batches, false);
        assertSame(actual, expected);
        assertThat(stage.overlappedRequests()).isPositive();
    }

    @Test
    void shouldLeaveNoTraceOfAFailedRequestWhenABatchRunsInOrderAfterARollback() {
        List<Batch> batches = batchesWithFailures(11, "fail");
        List<Executed> expected = reference(() -> new TestCells(CELLS), batchesWithFailures(11, "refuse"));
        ExecutionStage stage = new ExecutionStage(new TestCells(CELLS), KeyConflictMixer.unbounded(), pool);
        runAll(stage, batches.subList(0, 10), false);
        stage.rollbackTo(5);
        List<Executed> actual = new ArrayList<>(runAll(stage, batches.subList(5, 10), true));
        actual.addAll(runAll(stage, batches.subList(10, batches.size()), false));
        assertSame(actual, expected.subList(5, expected.size()));
    }

    @Test
    void shouldKeepTheEarlierWritesOfTheBatchToTheObjectsAFailedRequestWrote() {
        Batch batch = new Batch(
                1,
                1,
                1,
                List.of(
                        new Request(1, 1, TestCells.text("set:0:kept")),
                        new Request(2, 1, TestCells.text("fail:0:1:lost")),
                        new Request(3, 1, TestCells.text("copy:2:0"))));
        TestCells cells = new TestCells(4);
        ExecutionStage stage = new ExecutionStage(cells, KeyConflictMixer.unbounded(), pool);
        Executed executed = stage.execute(batch, false);
        assertThat(executed.replies().get(1).errorText())
                .isEqualTo("java.lang.IllegalStateException: cells 0 and 1 refused lost");
        TestCells.Cells state = cells.state.root("cells", TestCells.Cells.class);
        assertThat(state.cells[0].value).isEqualTo("kept@1");
        assertThat(state.cells[1].value).isEmpty();
        assertThat(state.cells[2].value).isEqualTo("kept@1");
    }
}
