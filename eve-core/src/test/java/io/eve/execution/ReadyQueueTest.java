package io.eve.execution;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.mixer.ConflictKeys;
import io.eve.mixer.ParallelBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Which ready request an executor thread runs: the earlier batch's first, then the one with the longest
 * chain behind it. One executor thread, held busy while requests become ready, so the order is exact.
 */
@Timeout(30)
class ReadyQueueTest {
    private final ExecutorService thread = Executors.newSingleThreadExecutor();
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void stop() {
        thread.shutdownNow();
    }

    /** Keeps the executor's only thread busy until {@link #release} opens. */
    private void holdTheThread() {
        thread.execute(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    @Test
    void shouldComputeTheLongestChainWaitingBehindEachRequest() {
        // 0 -> 2 -> 3 through "x", 1 free, 4 waits for 2 through "y".
        DependencyRun run = new DependencyRun(
                List.of(ParallelBatch.of(0, 1), ParallelBatch.of(2), ParallelBatch.of(3, 4)),
                List.of(
                        ConflictKeys.writing("x"),
                        ConflictKeys.writing("z"),
                        ConflictKeys.writing("x", "y"),
                        ConflictKeys.writing("x"),
                        ConflictKeys.reading("y")));

        assertThat(run.chain(0)).isEqualTo(2);
        assertThat(run.chain(1)).isZero();
        assertThat(run.chain(2)).isEqualTo(1);
        assertThat(run.chain(3)).isZero();
        assertThat(run.chain(4)).isZero();
    }

    @Test
    void shouldRunTheRequestWithTheLongestChainFirst() {
        // Ready at the start: 0, 1, 2; request 2 has request 3 waiting behind it.
        DependencyRun run = new DependencyRun(
                List.of(ParallelBatch.of(0, 1, 2), ParallelBatch.of(3)),
                List.of(
                        ConflictKeys.writing("a"),
                        ConflictKeys.writing("b"),
                        ConflictKeys.writing("c"),
                        ConflictKeys.writing("c")));
        List<Integer> ran = new CopyOnWriteArrayList<>();
        holdTheThread();
        run.start(thread, new ReadyQueue(), 1, ran::add);
        release.countDown();
        run.await();

        // First in, first out would have run 0, 1, 2, 3: request 3 last, after a wait for 2 at the very end.
        assertThat(ran).containsExactly(2, 0, 1, 3);
    }

    @Test
    void shouldRunTheEarlierBatchFirstEvenWhenTheLaterOneWasReadyBefore() throws Exception {
        ReadyQueue queue = new ReadyQueue();
        List<String> ran = new CopyOnWriteArrayList<>();
        DependencyRun next = new DependencyRun(
                List.of(ParallelBatch.of(0, 1)), List.of(ConflictKeys.writing("p"), ConflictKeys.writing("q")));
        DependencyRun current = new DependencyRun(
                List.of(ParallelBatch.of(0), ParallelBatch.of(1)),
                List.of(ConflictKeys.writing("r"), ConflictKeys.writing("r")));
        holdTheThread();
        next.start(thread, queue, 8, request -> ran.add("8/" + request));
        current.start(thread, queue, 7, request -> ran.add("7/" + request));
        assertThat(queue.size()).isEqualTo(3);
        release.countDown();
        current.await();
        next.await();

        // Request 7/1 became ready only when 7/0 finished, after both of batch 8's: it still goes first.
        assertThat(ran).containsExactly("7/0", "7/1", "8/0", "8/1");
        assertThat(queue.size()).isZero();
    }

    @Test
    void shouldRunEveryRequestOnceWithManyThreads() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            int size = 400;
            List<ParallelBatch> partition = new ArrayList<>();
            List<ConflictKeys> keys = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                partition.add(ParallelBatch.of(i));
                keys.add(ConflictKeys.writing("k" + (i % 7)));
            }
            DependencyRun run = new DependencyRun(partition, keys);
            java.util.concurrent.atomic.AtomicIntegerArray counts =
                    new java.util.concurrent.atomic.AtomicIntegerArray(size);
            run.start(pool, new ReadyQueue(), 1, counts::incrementAndGet);
            run.await();
            for (int i = 0; i < size; i++) {
                assertThat(counts.get(i)).as("request %d", i).isEqualTo(1);
            }
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }
}
