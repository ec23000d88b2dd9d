package io.eve.execution;

import static io.eve.execution.OverlappingStageTest.assertSame;
import static io.eve.execution.OverlappingStageTest.randomBatches;
import static io.eve.execution.OverlappingStageTest.reference;
import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Application;
import io.eve.ApplicationError;
import io.eve.ApplicationException;
import io.eve.ExecutionContext;
import io.eve.PreparedRequest;
import io.eve.Reply;
import io.eve.Request;
import io.eve.batch.Batch;
import io.eve.merkle.VersionedState;
import io.eve.mixer.ConflictKeys;
import io.eve.mixer.conflict.KeyConflictMixer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A typed application ({@link Application#typed}) in the execution stage: each request is decoded once for
 * its conflict keys and its executions, whether its batch is planned ahead, started early, run again
 * sequentially after a rollback, or the request is read-only; undecodable payloads and thrown exceptions
 * become error replies with codes, the same on every replica.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TypedRequestsTest {
    private static final int THREADS = 4;
    private static final int CELLS = 200;
    private static final int SIZE = 24;

    private final ExecutorService pool = Executors.newFixedThreadPool(THREADS);

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    private static List<Executed> typedReference(List<Batch> batches) {
        return reference(() -> new TypedCells(CELLS).application(), batches);
    }

    private static Request request(long client, long seq, String text) {
        return new Request(client, seq, TestCells.text(text));
    }

    private static String text(Reply reply) {
        return new String(reply.payload(), StandardCharsets.UTF_8);
    }

    @Test
    void shouldDecodeEachRequestOnceForItsConflictKeysAndItsExecution() {
        List<Batch> batches = randomBatches(3, 1, SIZE, CELLS);
        TypedCells cells = new TypedCells(CELLS);
        ExecutionStage stage = new ExecutionStage(cells.application(), KeyConflictMixer.unbounded(), pool);
        Executed executed = stage.execute(batches.get(0), false);
        assertThat(cells.decodes).hasValue(SIZE);
        assertThat(executed.parallelBatches())
                .as("the keys came from the decoded requests")
                .isLessThan(SIZE);
        assertSame(List.of(executed), typedReference(batches));
    }

    @Test
    void shouldDecodeOnceWhenTheBatchIsPlannedAheadOfItsExecution() {
        List<Batch> batches = randomBatches(11, 30, SIZE, CELLS);
        TypedCells cells = new TypedCells(CELLS);
        cells.workMillis = 2;
        ExecutionStage stage = new ExecutionStage(cells.application(), KeyConflictMixer.unbounded(), pool);
        List<Executed> actual = new ArrayList<>();
        for (int i = 0; i < batches.size(); i++) {
            if (i + 1 < batches.size()) {
                stage.offer(batches.get(i + 1), false); // planned while batch i's requests run
            }
            actual.add(stage.execute(batches.get(i), false));
        }
        assertThat(stage.preparedBatches()).as("batches run as planned").isPositive();
        assertThat(cells.decodes).hasValue(batches.size() * SIZE);
        assertSame(actual, typedReference(batches));
    }

    @Test
    void shouldDecodeOnceWhenTheBatchStartsEarly() {
        List<Batch> batches = randomBatches(7, 40, SIZE, CELLS);
        TypedCells cells = new TypedCells(CELLS);
        cells.workMillis = 2;
        ExecutionStage stage = new ExecutionStage(cells.application(), KeyConflictMixer.unbounded(), pool);
        stage.overlap(THREADS, seq -> {
            if (seq < batches.size()) {
                stage.offer(batches.get((int) seq), false);
            }
        });
        List<Executed> actual = new ArrayList<>();
        for (Batch batch : batches) {
            actual.add(stage.execute(batch, false));
        }
        assertThat(stage.overlappedRequests()).as("requests started early").isPositive();
        assertThat(cells.decodes).hasValue(batches.size() * SIZE);
        assertSame(actual, typedReference(batches));
    }

    @Test
    void shouldDecodeOnceWhenABatchStartedEarlyIsCancelledAndRunAgain() {
        List<Batch> batches = randomBatches(11, 3, 12, 50);
        TypedCells cells = new TypedCells(50);
        cells.workMillis = 3;
        ExecutionStage stage = new ExecutionStage(cells.application(), KeyConflictMixer.unbounded(), pool);
        stage.overlap(THREADS, seq -> {
            if (seq < batches.size()) {
                stage.offer(batches.get((int) seq), false);
            }
        });
        List<Executed> actual = new ArrayList<>();
        actual.add(stage.execute(batches.get(0), false));
        stage.deltaSince(0); // cancels batch 2 if it started early
        actual.add(stage.execute(batches.get(1), false));
        actual.add(stage.execute(batches.get(2), false));
        assertThat(cells.decodes).hasValue(3 * 12);
        assertSame(actual, reference(() -> new TypedCells(50).application(), batches));
    }

    @Test
    void shouldDecodeOnceAcrossARollbackAndASequentialRunOfTheSameBatches() {
        List<Batch> batches = randomBatches(5, 3, SIZE, CELLS);
        TypedCells cells = new TypedCells(CELLS);
        ExecutionStage stage = new ExecutionStage(cells.application(), KeyConflictMixer.unbounded(), pool);
        List<Executed> actual = new ArrayList<>();
        for (Batch batch : batches) {
            actual.add(stage.execute(batch, false));
        }
        stage.rollbackTo(1);
        actual.set(1, stage.execute(batches.get(1), true)); // Eve §4.2: the batch after a rollback runs in order
        actual.set(2, stage.execute(batches.get(2), false));
        assertThat(actual.get(1).parallelBatches()).isEqualTo(SIZE);
        assertThat(cells.decodes).hasValue(batches.size() * SIZE);
        assertSame(actual, typedReference(batches));
    }

    @Test
    void shouldDecodeAReadOnlyRequestOnce() {
        TypedCells cells = new TypedCells(CELLS);
        ExecutionStage stage = new ExecutionStage(cells.application(), KeyConflictMixer.unbounded(), pool);
        stage.execute(new Batch(1, 1, 1, List.of(request(1, 1, "set:4:x"))), false);
        stage.markStable(1);
        int before = cells.decodes.get();
        AtomicReference<Reply> answer = new AtomicReference<>();
        stage.read(request(2, 1, "get:4"), 8, (reply, reissue) -> answer.set(reply));
        assertThat(cells.decodes.get() - before).isEqualTo(1);
        assertThat(text(answer.get())).isEqualTo("x@1");
        stage.read(request(2, 2, "nope:4"), 8, (reply, reissue) -> answer.set(reply));
        assertThat(answer.get().errorCode()).isEqualTo(ApplicationException.UNDECODABLE);
    }

    @Test
    void shouldAnswerAnUndecodablePayloadWithAnErrorNamingTheProblemAndRunTheBatchInOrder() {
        TypedCells cells = new TypedCells(CELLS);
        ExecutionStage stage = new ExecutionStage(cells.application(), KeyConflictMixer.unbounded(), pool);
        Batch batch = new Batch(
                1, 1, 1, List.of(request(1, 1, "set:1:a"), request(2, 1, "bogus:1"), request(3, 1, "set:2:b")));
        Executed executed = stage.execute(batch, false);
        Reply undecodable = executed.replies().get(1);
        assertThat(undecodable.errorCode()).isEqualTo(ApplicationException.UNDECODABLE);
        assertThat(undecodable.errorMessage())
                .isEqualTo("a request payload of 7 bytes could not be decoded: java.lang.IllegalArgumentException:"
                        + " unknown operation 'bogus'");
        assertThat(executed.parallelBatches())
                .as("it conflicts with everything")
                .isEqualTo(3);
        assertThat(executed.replies().get(2).error()).isFalse();
        assertThat(cells.decodes).as("one failed decoding, not one per use").hasValue(3);
    }

    @Test
    void shouldCarryTheApplicationsCodeAndMapOtherExceptionsToUnexpected() {
        TypedCells cells = new TypedCells(CELLS);
        ExecutionStage stage = new ExecutionStage(cells.application(), KeyConflictMixer.unbounded(), pool);
        Batch batch = new Batch(1, 1, 1, List.of(request(1, 1, "refuse:9"), request(2, 1, "crash:3")));
        Executed executed = stage.execute(batch, false);
        ApplicationError refused = executed.replies().get(0).applicationError().orElseThrow();
        assertThat(refused.code()).isEqualTo("refused");
        assertThat(refused.message()).isEqualTo("cell 9 is closed");
        assertThat(refused.detail()).containsExactly(9);
        ApplicationError crashed = executed.replies().get(1).applicationError().orElseThrow();
        assertThat(crashed.code()).isEqualTo(ApplicationException.UNEXPECTED);
        assertThat(crashed.exceptionClass()).isEqualTo(IllegalArgumentException.class.getName());
        assertThat(crashed.message()).isEqualTo("cell 3 crashed");
    }

    @Test
    void shouldGiveByteIdenticalRepliesAndTokensOnEveryReplica() {
        List<Batch> batches = new ArrayList<>(randomBatches(9, 4, SIZE, CELLS));
        batches.add(new Batch(
                5,
                5,
                5,
                List.of(
                        request(100, 1, "refuse:1"),
                        request(101, 1, "crash:2"),
                        request(102, 1, "bogus"),
                        request(103, 1, "set:x:1"))));
        TypedCells cells = new TypedCells(CELLS);
        cells.workMillis = 1;
        ExecutionStage parallel = new ExecutionStage(cells.application(), KeyConflictMixer.unbounded(), pool);
        List<Executed> actual = new ArrayList<>();
        for (Batch batch : batches) {
            actual.add(parallel.execute(batch, false));
        }
        List<Executed> expected = typedReference(batches);
        assertSame(actual, expected);
        assertThat(actual.get(4).replies()).allMatch(Reply::error);
        assertThat(actual.get(4).replies().get(3).errorText())
                .isEqualTo("io.eve.ApplicationException: a request payload of 7 bytes could not be decoded:"
                        + " java.lang.NumberFormatException: For input string: \"x\"");
    }

    @Test
    void shouldAnswerARequestTheApplicationCouldNotPrepareAsUndecodable() {
        Application failing = new Application() {
            private final TypedCells cells = new TypedCells(4);

            @Override
            public VersionedState state() {
                return cells.state;
            }

            @Override
            public PreparedRequest prepare(byte[] payload) {
                throw new IllegalStateException("no preparing " + payload.length + " bytes");
            }

            @Override
            public ConflictKeys conflictKeys(byte[] payload) {
                return ConflictKeys.none();
            }

            @Override
            public byte[] execute(byte[] payload, ExecutionContext context) {
                return payload;
            }
        };
        ExecutionStage stage = new ExecutionStage(failing, KeyConflictMixer.unbounded(), pool);
        Reply reply = stage.execute(new Batch(1, 1, 1, List.of(request(1, 1, "abc"))), false)
                .replies()
                .get(0);
        assertThat(reply.errorCode()).isEqualTo(ApplicationException.UNDECODABLE);
        assertThat(reply.errorMessage())
                .isEqualTo("the application could not prepare a request of 3 bytes:"
                        + " java.lang.IllegalStateException: no preparing 3 bytes");
    }
}
