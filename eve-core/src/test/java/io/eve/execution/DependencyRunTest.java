package io.eve.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.mixer.ConflictKeys;
import io.eve.mixer.ParallelBatch;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class DependencyRunTest {
    private final ExecutorService pool = Executors.newFixedThreadPool(2);

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    @Test
    void shouldMakeARequestWaitOnlyForTheEarlierRequestsItConflictsWith() {
        DependencyRun run = new DependencyRun(
                List.of(ParallelBatch.of(0, 1), ParallelBatch.of(2, 3)),
                List.of(
                        ConflictKeys.writing("a"),
                        ConflictKeys.writing("b"),
                        ConflictKeys.reading("a"),
                        ConflictKeys.writing("c")));

        assertThat(run.waitingFor(2)).isEqualTo(1);
        assertThat(run.waitingFor(3)).isZero();
    }

    @Test
    void shouldMakeAWriterWaitForEveryEarlierReaderAndWriterOfTheKey() {
        // Request 0 reads k and request 1 writes it in the same parallel batch (a mixer that missed the
        // conflict); a later writer of k must wait for both.
        DependencyRun run = new DependencyRun(
                List.of(ParallelBatch.of(0, 1), ParallelBatch.of(2), ParallelBatch.of(3)),
                List.of(
                        ConflictKeys.reading("k"),
                        ConflictKeys.writing("k"),
                        ConflictKeys.writing("k"),
                        ConflictKeys.reading("k").andReading("k")));

        assertThat(run.waitingFor(0)).isZero();
        assertThat(run.waitingFor(1)).as("same parallel batch: no order").isZero();
        assertThat(run.waitingFor(2)).isEqualTo(2);
        assertThat(run.waitingFor(3)).as("only the last writer").isEqualTo(1);
    }

    @Test
    void shouldOrderByTheKeysTheMixerUsedWhereItInventedAConflict() {
        // A false positive: the mixer was told that requests 0 and 2 share "invented"; the application
        // declared no conflict between them.
        List<ConflictKeys> declared =
                List.of(ConflictKeys.writing("a"), ConflictKeys.writing("b"), ConflictKeys.writing("c"));
        List<ConflictKeys> ordering = List.of(
                ConflictKeys.writing("a", "invented"),
                ConflictKeys.writing("b"),
                ConflictKeys.writing("c", "invented"));

        DependencyRun run = new DependencyRun(List.of(ParallelBatch.of(0, 1), ParallelBatch.of(2)), ordering, declared);

        assertThat(run.waitingFor(2)).isEqualTo(1);
        assertThat(run.chain(0)).isEqualTo(1);
    }

    @Test
    void shouldNotOrderAConflictTheMixerWasToldIsNotThere() {
        // A false negative: requests 0 and 2 both write "k", but the mixer's keys no longer say so; the split
        // put them in different parallel batches for another reason (request 1).
        List<ConflictKeys> declared =
                List.of(ConflictKeys.writing("k", "x"), ConflictKeys.writing("x"), ConflictKeys.writing("k"));
        List<ConflictKeys> ordering =
                List.of(ConflictKeys.writing("x"), ConflictKeys.writing("x"), ConflictKeys.none());

        DependencyRun run = new DependencyRun(List.of(ParallelBatch.of(0, 2), ParallelBatch.of(1)), ordering, declared);
        DependencyRun split =
                new DependencyRun(List.of(ParallelBatch.of(0), ParallelBatch.of(1, 2)), ordering, declared);

        assertThat(run.waitingFor(1)).isEqualTo(1);
        assertThat(split.waitingFor(2))
                .as("a hidden conflict races across parallel batches too")
                .isZero();
    }

    @Test
    void shouldHoldBackAnOverlappingStartByTheDeclaredKeys() {
        List<ConflictKeys> declared = List.of(ConflictKeys.writing("k"), ConflictKeys.writing("j"));
        List<ConflictKeys> ordering = List.of(ConflictKeys.none(), ConflictKeys.none());
        DependencyRun run = new DependencyRun(List.of(ParallelBatch.of(0, 1)), ordering, declared);

        assertThat(run.holdConflictsWith(Set.of("k"), Set.of())).isEqualTo(1);
        assertThat(run.waitingFor(0)).isEqualTo(1);
        assertThat(run.waitingFor(1)).isZero();
    }

    @Test
    void shouldRefuseOrderingKeysForAnotherNumberOfRequests() {
        assertThatThrownBy(
                        () -> new DependencyRun(List.of(ParallelBatch.of(0)), List.of(), List.of(ConflictKeys.none())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ordering keys for 0 requests, declared keys for 1");
    }

    @Test
    void shouldNotHoldAnIndependentRequestBehindASlowOneOfAnEarlierParallelBatch() throws Exception {
        CountDownLatch slowMayFinish = new CountDownLatch(1);
        CountDownLatch independentRan = new CountDownLatch(1);
        DependencyRun run = new DependencyRun(
                List.of(ParallelBatch.of(0, 1), ParallelBatch.of(2)),
                List.of(ConflictKeys.writing("slow"), ConflictKeys.writing("b"), ConflictKeys.writing("b")));
        Thread stage = new Thread(() -> run.run(pool, request -> {
            if (request == 0) {
                await(slowMayFinish);
            } else if (request == 2) {
                independentRan.countDown();
            }
        }));
        stage.start();

        assertThat(independentRan.await(10, TimeUnit.SECONDS))
                .as("request 2 ran while request 0 of the earlier parallel batch was still running")
                .isTrue();
        slowMayFinish.countDown();
        stage.join(10_000);
        assertThat(stage.isAlive()).isFalse();
    }

    @Test
    void shouldRunConflictingRequestsInParallelBatchOrder() {
        List<Integer> ran = new CopyOnWriteArrayList<>();
        DependencyRun run = new DependencyRun(
                List.of(ParallelBatch.of(3), ParallelBatch.of(1), ParallelBatch.of(0, 2)),
                List.of(
                        ConflictKeys.writing("x"),
                        ConflictKeys.writing("x"),
                        ConflictKeys.writing("y"),
                        ConflictKeys.writing("x", "y")));

        run.run(pool, ran::add);

        assertThat(ran).hasSize(4);
        assertThat(ran.indexOf(3)).isLessThan(ran.indexOf(1));
        assertThat(ran.indexOf(1)).isLessThan(ran.indexOf(0));
        assertThat(ran.indexOf(3)).isLessThan(ran.indexOf(2));
    }

    @Test
    void shouldRethrowTheFirstFailureAfterTheRunEnds() {
        DependencyRun run = new DependencyRun(
                List.of(ParallelBatch.of(0), ParallelBatch.of(1)),
                List.of(ConflictKeys.writing("a"), ConflictKeys.writing("a")));

        assertThatThrownBy(() -> run.run(pool, request -> {
                    throw new IllegalStateException("boom " + request);
                }))
                .hasRootCauseMessage("boom 0");
    }

    @Test
    void shouldRefuseAPartitionThatDoesNotCoverTheBatch() {
        assertThatThrownBy(() -> new DependencyRun(
                        List.of(ParallelBatch.of(0)), List.of(ConflictKeys.none(), ConflictKeys.none())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("places 1 requests");
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
