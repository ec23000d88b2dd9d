package io.eve.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.Application;
import io.eve.Reply;
import io.eve.Request;
import io.eve.batch.Batch;
import io.eve.mixer.Mixer;
import io.eve.mixer.conflict.KeyConflictMixer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Consecutive batches overlapping on real threads (ExecutionStage#overlap): whatever ran early, every
 * token and reply equals those of the same batches run one at a time on one thread, including when the
 * conflict keys miss a conflict between the batches, and when a batch started early is cancelled.
 */
class OverlappingStageTest {
    private static final int THREADS = 4;

    private final ExecutorService pool = Executors.newFixedThreadPool(THREADS);

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    /** Random batches of sets and copies over {@code cells} cells, each client's requests numbered in order. */
    static List<Batch> randomBatches(long seed, int count, int size, int cells) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] nextSeq = new long[64];
        List<Batch> batches = new ArrayList<>();
        for (int b = 1; b <= count; b++) {
            List<Request> requests = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                int client = random.nextInt(nextSeq.length);
                String payload = random.nextInt(4) == 0
                        ? "copy:" + random.nextInt(cells) + ":" + random.nextInt(cells)
                        : "set:" + random.nextInt(cells) + ":" + random.nextInt(1000);
                requests.add(new Request(client, ++nextSeq[client], TestCells.text(payload)));
            }
            batches.add(new Batch(b, 1000 + b, b * 31L, requests));
        }
        return batches;
    }

    /** The tokens and replies of {@code batches} run one at a time, one request at a time. */
    static List<Executed> reference(Supplier<Application> application, List<Batch> batches) {
        ExecutorService one = Executors.newSingleThreadExecutor();
        try {
            ExecutionStage stage = new ExecutionStage(application.get(), KeyConflictMixer.unbounded(), one);
            List<Executed> executed = new ArrayList<>();
            for (Batch batch : batches) {
                executed.add(stage.execute(batch, false));
            }
            return executed;
        } finally {
            one.shutdownNow();
        }
    }

    /**
     * Runs {@code batches} with overlap on, offering each batch's successor when the batch drains, as the
     * replica shells do.
     */
    private ExecutionStage overlapping(Application application, Mixer mixer, List<Batch> batches) {
        ExecutionStage stage = new ExecutionStage(application, mixer, pool);
        stage.overlap(THREADS, seq -> {
            if (seq < batches.size()) {
                stage.offer(batches.get((int) seq), false);
            }
        });
        return stage;
    }

    static void assertSame(List<Executed> actual, List<Executed> expected) {
        assertThat(actual).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            assertThat(actual.get(i).token())
                    .as("token of batch %d", i + 1)
                    .isEqualTo(expected.get(i).token());
            List<Reply> replies = actual.get(i).replies();
            assertThat(replies)
                    .as("replies of batch %d", i + 1)
                    .isEqualTo(expected.get(i).replies());
        }
    }

    @Test
    void shouldStartTheNextBatchEarlyAndSealEveryVersionAsSequentialExecutionDoes() {
        List<Batch> batches = randomBatches(7, 40, 24, 200);
        List<Executed> expected = reference(() -> new TestCells(200), batches);
        TestCells cells = new TestCells(200);
        cells.workMillis = 2;
        ExecutionStage stage = overlapping(cells, KeyConflictMixer.unbounded(), batches);
        List<Executed> actual = new ArrayList<>();
        for (Batch batch : batches) {
            actual.add(stage.execute(batch, false));
        }
        assertSame(actual, expected);
        assertThat(stage.overlappedRequests())
                .as("requests started before the previous seal")
                .isPositive();
        assertThat(stage.overlapConflicts()).isZero();
    }

    @Test
    void shouldHoldBackTheRequestsThatConflictWithTheBatchInProgress() {
        // Batch 2 reads and writes what batch 1's slow request writes: it must see batch 1's final value.
        List<Batch> batches = List.of(
                new Batch(
                        1,
                        1,
                        1,
                        List.of(
                                new Request(1, 1, TestCells.text("set:0:slow")),
                                new Request(2, 1, TestCells.text("set:1:x")))),
                new Batch(
                        2,
                        2,
                        2,
                        List.of(
                                new Request(3, 1, TestCells.text("copy:2:0")),
                                new Request(4, 1, TestCells.text("set:3:y")),
                                new Request(1, 2, TestCells.text("set:4:z")))));
        List<Executed> expected = reference(() -> new TestCells(8), batches);
        TestCells cells = new TestCells(8);
        cells.slowMillis = 100;
        ExecutionStage stage = overlapping(cells, KeyConflictMixer.unbounded(), batches);
        List<Executed> actual = List.of(stage.execute(batches.get(0), false), stage.execute(batches.get(1), false));
        assertSame(actual, expected);
        assertThat(stage.overlappedRequests())
                .as("set:3:y and client 1's set:4:z conflict with nothing: a client's request no longer waits for"
                        + " the client's requests of the batch before")
                .isEqualTo(2);
        assertThat(new String(actual.get(1).replies().get(0).payload(), java.nio.charset.StandardCharsets.UTF_8))
                .isEmpty();
    }

    @Test
    void shouldRunBothBatchesAgainWhenARequestWritesWhatTheOtherBatchWroteUnannounced() {
        // Batch 1's request declares key 99 but writes cell 5, which batch 2 writes early.
        List<Batch> batches = List.of(
                new Batch(
                        1,
                        1,
                        1,
                        List.of(
                                new Request(1, 1, TestCells.text("hidden:5:slow:99")),
                                new Request(2, 1, TestCells.text("set:1:x")))),
                new Batch(
                        2,
                        2,
                        2,
                        List.of(
                                new Request(3, 1, TestCells.text("set:5:b")),
                                new Request(4, 1, TestCells.text("set:6:c")))));
        List<Executed> expected = reference(() -> new TestCells(8), batches);
        TestCells cells = new TestCells(8);
        cells.slowMillis = 100;
        ExecutionStage stage = overlapping(cells, KeyConflictMixer.unbounded(), batches);
        List<Executed> actual = new ArrayList<>();
        actual.add(stage.execute(batches.get(0), false));
        actual.add(stage.execute(batches.get(1), false));
        assertThat(stage.overlapConflicts()).isEqualTo(1);
        assertSame(actual, expected);
    }

    @Test
    void shouldFallBackWhenRequestsShareACollectionAndStillMatch() {
        // The ledger keeps every key in one replicated map: batches that overlap always touch one object.
        List<Batch> batches = ledgerBatches(6, 6);
        List<Executed> expected = reference(TestLedger::new, batches);
        TestLedger ledger = new TestLedger();
        ledger.slowMillis = 50;
        ExecutionStage stage = overlapping(ledger, KeyConflictMixer.unbounded(), batches);
        List<Executed> actual = new ArrayList<>();
        for (Batch batch : batches) {
            actual.add(stage.execute(batch, false));
        }
        assertSame(actual, expected);
        assertThat(stage.overlapConflicts()).isPositive();
    }

    /** Batches of puts of fresh ledger keys, each batch's first request slow (so the next one starts early). */
    private static List<Batch> ledgerBatches(int count, int requestsPerBatch) {
        List<Batch> batches = new ArrayList<>();
        for (int b = 1; b <= count; b++) {
            List<Request> requests = new ArrayList<>();
            for (int i = 0; i < requestsPerBatch; i++) {
                String value = i == 0 ? "slow" : "v";
                requests.add(new Request(b * 10L + i, 1, TestLedger.text("put:k" + (b * 10 + i) + ":" + value)));
            }
            batches.add(new Batch(b, b, b, requests));
        }
        return batches;
    }

    @Test
    void shouldDoubleTheBackoffWhileBatchesKeepMeetingUpTo1024() {
        assertThat(ExecutionStage.backoffAfter(1)).isEqualTo(16);
        assertThat(ExecutionStage.backoffAfter(2)).isEqualTo(32);
        assertThat(ExecutionStage.backoffAfter(7)).isEqualTo(1024);
        assertThat(ExecutionStage.backoffAfter(50)).isEqualTo(1024);
        assertThatThrownBy(() -> ExecutionStage.backoffAfter(0)).hasMessageContaining("streak of 0");
    }

    @Test
    void shouldOverlapLessAndLessOftenWhenEveryBatchWritesOneSharedCollection() {
        // With a fixed backoff of 16, 120 batches that always meet would conflict about 7 times (one in 17);
        // doubling gives conflicts at about batches 1, 18, 51 and 116.
        List<Batch> batches = ledgerBatches(120, 4);
        List<Executed> expected = reference(TestLedger::new, batches);
        TestLedger ledger = new TestLedger();
        ledger.slowMillis = 5;
        ExecutionStage stage = overlapping(ledger, KeyConflictMixer.unbounded(), batches);
        List<Executed> actual = new ArrayList<>();
        for (Batch batch : batches) {
            actual.add(stage.execute(batch, false));
        }
        assertSame(actual, expected);
        assertThat(stage.overlapConflicts()).isBetween(2L, 4L);
    }

    @Test
    void shouldCancelABatchStartedEarlyBeforeAnythingElseTouchesTheState() {
        List<Batch> batches = randomBatches(11, 3, 12, 50);
        List<Executed> expected = reference(() -> new TestCells(50), batches);
        TestCells cells = new TestCells(50);
        cells.workMillis = 3;
        ExecutionStage stage = overlapping(cells, KeyConflictMixer.unbounded(), batches);
        List<Executed> actual = new ArrayList<>();
        actual.add(stage.execute(batches.get(0), false));
        // A transfer asked between batches: the early batch 2 is undone first, so the delta is of version 1.
        assertThat(stage.deltaSince(0).targetSeq()).isEqualTo(1);
        assertThat(stage.state().hasUnsealedWrites()).isFalse();
        actual.add(stage.execute(batches.get(1), false));
        // Batch 3 came early, but a rollback to 1 discards it along with batch 2.
        stage.rollbackTo(1);
        assertThat(stage.state().hasUnsealedWrites()).isFalse();
        actual.set(1, stage.execute(batches.get(1), false));
        actual.add(stage.execute(batches.get(2), false));
        assertSame(actual, expected);
        assertThat(stage.overlapCancels()).isPositive();
    }

    @Test
    void shouldRunAnotherBatchOfTheSameNumberThanTheOneStartedEarly() {
        List<Batch> offeredBatches = randomBatches(13, 2, 10, 40);
        List<Batch> executedBatches =
                List.of(offeredBatches.get(0), randomBatches(17, 2, 10, 40).get(1));
        List<Executed> expected = reference(() -> new TestCells(40), executedBatches);
        TestCells cells = new TestCells(40);
        cells.workMillis = 3;
        ExecutionStage stage = overlapping(cells, KeyConflictMixer.unbounded(), offeredBatches);
        List<Executed> actual = new ArrayList<>();
        for (Batch batch : executedBatches) {
            actual.add(stage.execute(batch, false));
        }
        assertSame(actual, expected);
    }
}
