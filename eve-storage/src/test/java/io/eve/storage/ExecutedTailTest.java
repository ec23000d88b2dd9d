package io.eve.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.batch.Batch;
import io.eve.execution.ExecutionStage;
import io.eve.mixer.conflict.KeyConflictMixer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExecutedTailTest {
    @TempDir
    Path dir;

    private final ExecutorService executor = Executors.newFixedThreadPool(2);

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    /** docs/quorum.md, "Durable replicas and verifiers": the view a primary led survives with the batches. */
    @Test
    void shouldKeepTheViewLedWithTheBatches() throws Exception {
        ExecutionStage stage = new ExecutionStage(new Counters(), KeyConflictMixer.unbounded(), executor);
        Batch first = Counters.fill(1, 3);
        LoggedBatch one =
                new LoggedBatch(4, false, first, stage.execute(first, false).token());
        CountDownLatch durable = new CountDownLatch(1);
        ExecutedTail tail = new ExecutedTail(
                dir,
                "node 0",
                version -> {
                    if (version == 2) {
                        durable.countDown();
                    }
                },
                failure -> {});
        tail.save(1, List.of(), 3);
        tail.save(2, List.of(one), 4);
        assertThat(durable.await(30, TimeUnit.SECONDS)).isTrue();
        tail.close();
        ExecutedTail.Contents read = new ExecutedTail(dir, "node 0", v -> {}, f -> {}).contents();
        assertThat(read.ledView()).isEqualTo(4);
        assertThat(read.batches()).extracting(LoggedBatch::seq).containsExactly(1L);
    }

    /** A batch kept for several records is encoded once; one executed again after a rollback is a new batch. */
    @Test
    void shouldWriteABatchExecutedAgainNotTheEncodingOfTheOneItReplaced() throws Exception {
        ExecutionStage stage = new ExecutionStage(new Counters(), KeyConflictMixer.unbounded(), executor);
        Batch first = Counters.fill(1, 4);
        LoggedBatch one =
                new LoggedBatch(0, false, first, stage.execute(first, false).token());
        Batch second = Counters.fill(2, 6);
        LoggedBatch two =
                new LoggedBatch(0, false, second, stage.execute(second, false).token());
        stage.rollbackTo(1);
        Batch again = Counters.fill(2, 2);
        LoggedBatch twoAgain =
                new LoggedBatch(1, true, again, stage.execute(again, true).token());
        CountDownLatch durable = new CountDownLatch(1);
        ExecutedTail tail = new ExecutedTail(
                dir,
                "node 0",
                version -> {
                    if (version == 4) {
                        durable.countDown();
                    }
                },
                failure -> {});
        tail.save(1, List.of(one));
        tail.save(2, List.of(one, two));
        tail.save(3, List.of(one));
        tail.save(4, List.of(one, twoAgain));
        assertThat(durable.await(30, TimeUnit.SECONDS)).isTrue();
        tail.close();

        List<LoggedBatch> read = new ExecutedTail(dir, "node 0", v -> {}, f -> {}).read();
        assertThat(read).extracting(LoggedBatch::seq).containsExactly(1L, 2L);
        assertThat(read.get(0).batch().requests()).isEqualTo(first.requests());
        assertThat(read.get(1).batch().requests()).isEqualTo(again.requests());
        assertThat(read.get(1).token()).isEqualTo(twoAgain.token()).isNotEqualTo(two.token());
        assertThat(read.get(1).view()).isEqualTo(1);
    }

    @Test
    void shouldKeepTheLatestTailAndRefuseADamagedOne() throws Exception {
        ExecutionStage stage = new ExecutionStage(new Counters(), KeyConflictMixer.unbounded(), executor);
        Batch first = Counters.fill(1, 20);
        Batch second = Counters.fill(2, 5);
        LoggedBatch one =
                new LoggedBatch(0, false, first, stage.execute(first, false).token());
        LoggedBatch two =
                new LoggedBatch(0, true, second, stage.execute(second, true).token());
        AtomicLong durable = new AtomicLong();
        CountDownLatch secondDurable = new CountDownLatch(1);
        ExecutedTail tail = new ExecutedTail(
                dir,
                "node 0",
                version -> {
                    durable.set(version);
                    if (version == 2) {
                        secondDurable.countDown();
                    }
                },
                failure -> {});
        assertThat(tail.read()).isEmpty();
        tail.save(1, List.of(one));
        tail.save(2, List.of(one, two));
        assertThat(secondDurable.await(30, TimeUnit.SECONDS)).isTrue();
        tail.close();
        assertThat(durable.get()).isEqualTo(2);

        List<LoggedBatch> read = new ExecutedTail(dir, "node 0", v -> {}, f -> {}).read();
        assertThat(read).extracting(LoggedBatch::seq).containsExactly(1L, 2L);
        assertThat(read.get(1).token()).isEqualTo(two.token());
        assertThat(read.get(1).sequential()).isTrue();
        assertThat(read.get(0).batch().requests()).isEqualTo(first.requests());

        assertThat(new ExecutedTail(dir, "node 0", v -> {}, f -> {}).contents().ledView())
                .isEqualTo(-1);

        Path file = dir.resolve(ExecutedTail.FILE);
        byte[] clean = Files.readAllBytes(file);
        // A flip in the first copy of the record is repaired from the second.
        byte[] bytes = clean.clone();
        bytes[JournalFormat.HEADER_BYTES + 40] ^= 0x04;
        Files.write(file, bytes);
        assertThat(new ExecutedTail(dir, "node 0", v -> {}, f -> {}).read())
                .extracting(LoggedBatch::seq)
                .containsExactly(1L, 2L);
        // A flip in the header is refused.
        bytes = clean.clone();
        bytes[10] ^= 0x04;
        Files.write(file, bytes);
        assertThatThrownBy(() -> new ExecutedTail(dir, "node 0", v -> {}, f -> {}).read())
                .isInstanceOf(CorruptStorageException.class)
                .hasMessageContaining(file.toAbsolutePath().toString());
    }
}
