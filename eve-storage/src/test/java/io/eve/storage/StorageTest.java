package io.eve.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.config.ClusterConfig.Storage.Sync;
import io.eve.execution.ExecutionStage;
import io.eve.execution.Token;
import io.eve.merkle.Digest;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class StorageTest {
    private static final int KEYS = 40;

    @TempDir
    Path dir;

    private StorageConfig config() {
        return StorageConfig.of(dir).withCheckpoints(1_000_000, 16);
    }

    /** Opens storage on {@code config}, recovers a fresh stage from it and starts it. */
    private static Opened open(StorageConfig config, FileSync sync) {
        Storage storage = new Storage(config, "node 0", sync);
        ExecutionStage stage = Counters.newStage();
        Recovered recovered = storage.recover(stage);
        storage.start(seq -> {}, failure -> {});
        return new Opened(storage, stage, recovered);
    }

    private record Opened(Storage storage, ExecutionStage stage, Recovered recovered) {}

    /** Executes batches {@code from..to} on the opened stage and logs them as the runtime does. */
    private static void commit(Opened opened, long from, long to) {
        for (long seq = from; seq <= to; seq++) {
            LoggedBatch batch = Counters.run(opened.stage(), seq, seq, KEYS).get(0);
            opened.storage().append(batch);
            opened.storage().onStable(opened.stage(), seq, batch.view());
        }
    }

    private static Digest root(ExecutionStage stage) {
        return stage.state().rootAt(stage.stableSeq());
    }

    private Path onlySegment() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> segments = files.filter(p -> p.getFileName().toString().startsWith("segment-"))
                    .sorted()
                    .toList();
            assertThat(segments).hasSize(1);
            return segments.get(0);
        }
    }

    /** The offset of batch {@code seq}'s record in a segment holding batches 1.. of {@code logged}. */
    private static long offsetOf(List<LoggedBatch> logged, long seq) {
        long offset = BatchLog.SEGMENT_HEADER_BYTES;
        for (LoggedBatch batch : logged) {
            if (batch.seq() == seq) {
                return offset;
            }
            offset += LogRecords.encode(batch).remaining();
        }
        throw new AssertionError("no batch " + seq);
    }

    private static void flipByte(Path file, long offset) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        bytes[(int) offset] ^= 0x10;
        Files.write(file, bytes);
    }

    private static void cut(Path file, long length) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(length);
        }
    }

    /** Waits inside a {@link FileSync}, which may only throw an I/O exception. */
    private static void awaitIn(CountDownLatch latch) throws IOException {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted in a test force");
        }
    }

    @Test
    void shouldRecoverEveryAppendedBatch() {
        Opened first = open(config(), FileSync.FORCE);
        assertThat(first.recovered()).isEqualTo(Recovered.NOTHING);
        commit(first, 1, 50);
        first.storage().close();

        Opened second = open(config(), FileSync.FORCE);
        second.storage().close();
        assertThat(second.recovered().seq()).isEqualTo(50);
        assertThat(second.recovered().replayed()).isEqualTo(50);
        assertThat(second.recovered().view()).isEqualTo(1);
        assertThat(root(second.stage())).isEqualTo(root(first.stage()));
        assertThat(second.stage().lastToken()).isEqualTo(first.stage().lastToken());
    }

    @Test
    void shouldCoverEveryRecordWaitingWithOneForce() throws Exception {
        CountDownLatch appended = new CountDownLatch(1);
        AtomicInteger forces = new AtomicInteger();
        FileSync blockFirst = channel -> {
            awaitIn(appended); // hold the writer inside its first group
            forces.incrementAndGet();
            channel.force(false);
        };
        Storage storage = new Storage(config(), "node 0", blockFirst);
        ExecutionStage stage = Counters.newStage();
        storage.recover(stage);
        CountDownLatch durable = new CountDownLatch(1);
        storage.start(
                seq -> {
                    if (seq == 100) {
                        durable.countDown();
                    }
                },
                failure -> {});
        for (LoggedBatch batch : Counters.run(stage, 1, 100, KEYS)) {
            storage.append(batch);
        }
        appended.countDown();
        assertThat(durable.await(10, TimeUnit.SECONDS)).isTrue();
        storage.close();
        // The first group (one record, or all if the writer started late) and then everything else: one force
        // of the log each, whatever the scheduling, plus the directory's when the segment was created.
        assertThat(storage.forces()).isBetween(1L, 2L);
        assertThat(forces.get()).isLessThanOrEqualTo(4);
        assertThat(storage.durableSeq()).isEqualTo(100);
    }

    /**
     * On demand (a replica that releases no replies: its log is not what makes them durable), sync = batch
     * forces only what a reply waits for, at once, and leaves the rest to the interval.
     */
    @Test
    void shouldForceOnDemandOnlyUpToTheBatchesRepliesWaitFor() throws Exception {
        AtomicInteger forces = new AtomicInteger();
        Opened opened = openOnDemand(config().withSync(Sync.BATCH, Duration.ofHours(1)), forces);
        Storage storage = opened.storage();
        ExecutionStage stage = opened.stage();
        List<LoggedBatch> batches = Counters.run(stage, 1, 5, KEYS);
        batches.subList(0, 3).forEach(storage::append);

        storage.want(2);
        awaitDurable(storage, 2);
        long durable = storage.durableSeq();
        assertThat(durable)
                .as("the force for batch 2 covers what was appended then")
                .isBetween(2L, 3L);

        batches.subList(3, 5).forEach(storage::append);
        Thread.sleep(300);
        assertThat(storage.durableSeq())
                .as("no reply waits for batches 4 and 5: not forced before the interval (an hour)")
                .isEqualTo(durable);

        int before = forces.get();
        storage.want(5);
        awaitDurable(storage, 5);
        assertThat(forces.get() - before).as("one force for batch 5").isEqualTo(1);
        storage.close();
    }

    /**
     * On demand with sync = batch an append wakes the storage thread only when it completes a wanted batch: a
     * want that arrives before its batch is served by the append that brings it, at once, not at the interval
     * (an hour), even while the thread waits for that interval.
     */
    @Test
    void shouldForceAtOnceWhenTheWantedBatchIsAppendedAfterTheWant() throws Exception {
        AtomicInteger forces = new AtomicInteger();
        Opened opened = openOnDemand(config().withSync(Sync.BATCH, Duration.ofHours(1)), forces);
        Storage storage = opened.storage();
        List<LoggedBatch> batches = Counters.run(opened.stage(), 1, 3, KEYS);
        storage.append(batches.get(0));
        storage.append(batches.get(1));
        storage.want(2);
        // Having just written and forced, the thread waits for the interval.
        awaitAtLeast(storage::forcedSeq, 2, "forced batch");
        storage.want(3);
        storage.append(batches.get(2));
        awaitDurable(storage, 3);
        storage.close();
    }

    /**
     * Batches nobody waits for do not wake the storage thread, but the interval still forces them, and an
     * append to an idle thread (nothing appended since its last force) starts that interval.
     */
    @Test
    void shouldForceUnwantedBatchesOnTheIntervalAfterAnIdleSpell() throws Exception {
        AtomicInteger forces = new AtomicInteger();
        Opened opened = openOnDemand(config().withSync(Sync.BATCH, Duration.ofMillis(50)), forces);
        Storage storage = opened.storage();
        List<LoggedBatch> batches = Counters.run(opened.stage(), 1, 4, KEYS);
        batches.subList(0, 2).forEach(storage::append);
        awaitDurable(storage, 2);
        awaitWriterIdle(); // nothing appended, nothing unforced: it waits with no deadline
        batches.subList(2, 4).forEach(storage::append);
        awaitDurable(storage, 4);
        storage.close();
    }

    /**
     * After a state transfer the batch a reply waits for is covered by a checkpoint, not by an append: the
     * checkpoint wakes the thread, which would otherwise sleep until the interval (an hour).
     */
    @Test
    void shouldMakeATransferredBatchDurableWithoutWaitingForTheInterval() throws Exception {
        AtomicInteger forces = new AtomicInteger();
        Opened opened = openOnDemand(config().withSync(Sync.BATCH, Duration.ofHours(1)), forces);
        Storage storage = opened.storage();
        List<LoggedBatch> batches = Counters.run(opened.stage(), 1, 3, KEYS);
        storage.append(batches.get(0));
        storage.want(1);
        awaitDurable(storage, 1);
        storage.append(batches.get(1)); // nobody waits for it: the thread now waits for the interval
        storage.onTransferred(opened.stage(), 1); // batch 3 arrived by transfer: a checkpoint, no append
        storage.want(3);
        awaitDurable(storage, 3);
        storage.close();
    }

    /** Appends queued without waking the thread are written and forced when storage closes. */
    @Test
    void shouldForceQueuedAppendsOnClose() throws Exception {
        AtomicInteger forces = new AtomicInteger();
        StorageConfig config = config().withSync(Sync.BATCH, Duration.ofHours(1));
        Opened opened = openOnDemand(config, forces);
        Storage storage = opened.storage();
        Counters.run(opened.stage(), 1, 3, KEYS).forEach(storage::append);
        storage.close();
        assertThat(storage.durableSeq()).isEqualTo(3);
        Opened again = open(config, FileSync.FORCE);
        assertThat(again.recovered().seq()).isEqualTo(3);
        again.storage().close();
    }

    /**
     * With sync = none the log reports batches durable once the operating system has them, but only a force puts
     * them on disk: what waits for the disk (the executed tail) asks, and reads the forced batch.
     */
    @Test
    void shouldForceWantedBatchesAndTellWhichAreOnDiskEvenWithSyncNone() throws Exception {
        AtomicInteger forces = new AtomicInteger();
        Opened opened = openOnDemand(config().withSync(Sync.NONE, Duration.ofMillis(10)), forces);
        Storage storage = opened.storage();
        ExecutionStage stage = opened.stage();
        List<LoggedBatch> batches = Counters.run(stage, 1, 4, KEYS);
        batches.forEach(storage::append);
        awaitDurable(storage, 4);
        int atStart = forces.get();
        assertThat(storage.forcedSeq())
                .as("handed to the operating system, not forced")
                .isZero();

        storage.want(3);
        awaitAtLeast(storage::forcedSeq, 3, "forced batch");
        assertThat(storage.forcedSeq()).isEqualTo(4);
        assertThat(forces.get() - atStart).as("one force").isEqualTo(1);
        storage.close();
    }

    @Test
    void shouldForceEveryGroupWithSyncBatchUnlessOnDemand() throws Exception {
        Storage storage = new Storage(config().withSync(Sync.BATCH, Duration.ofHours(1)), "node 0");
        ExecutionStage stage = Counters.newStage();
        storage.recover(stage);
        storage.start(seq -> {}, failure -> {});
        Counters.run(stage, 1, 3, KEYS).forEach(storage::append);

        awaitDurable(storage, 3); // nobody asked: forced all the same
        storage.close();
    }

    /** Waits (up to 20 s) until node 0's storage thread parks with no deadline: only a command wakes it. */
    private static void awaitWriterIdle() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            boolean idle = Thread.getAllStackTraces().keySet().stream()
                    .anyMatch(t -> t.getName().equals("eve-storage-node-0") && t.getState() == Thread.State.WAITING);
            if (idle) {
                return;
            }
            Thread.sleep(5);
        }
        throw new AssertionError("the storage thread never went idle");
    }

    private static void awaitDurable(Storage storage, long seq) throws InterruptedException {
        awaitAtLeast(storage::durableSeq, seq, "durable batch");
    }

    /** Waits (up to 20 s, for a loaded machine) until {@code value} reaches {@code seq}. */
    private static void awaitAtLeast(LongSupplier value, long seq, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (value.getAsLong() < seq && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(value.getAsLong()).as(what).isGreaterThanOrEqualTo(seq);
    }

    /** Opens storage forcing on demand, counting the forces of its files (the folder's included) in {@code forces}. */
    private static Opened openOnDemand(StorageConfig config, AtomicInteger forces) {
        Storage storage = new Storage(config, "node 0", channel -> {
            forces.incrementAndGet();
            channel.force(false);
        });
        ExecutionStage stage = Counters.newStage();
        Recovered recovered = storage.recover(stage);
        storage.forceOnDemand();
        storage.start(seq -> {}, failure -> {});
        return new Opened(storage, stage, recovered);
    }

    @Test
    void shouldHoldBackDurabilityUntilTheForceWithSyncBatch() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch forcing = new CountDownLatch(1);
        FileSync slow = channel -> {
            forcing.countDown();
            awaitIn(release);
            channel.force(false);
        };
        Storage storage = new Storage(config(), "node 0", slow);
        ExecutionStage stage = Counters.newStage();
        storage.recover(stage);
        storage.start(seq -> {}, failure -> {});
        storage.append(Counters.run(stage, 1, 1, KEYS).get(0));
        assertThat(forcing.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(storage.durableSeq()).isZero();
        release.countDown();
        storage.close();
        assertThat(storage.durableSeq()).isEqualTo(1);
    }

    @Test
    void shouldCutATornLastWriteAndKeepWhatCameBefore() throws IOException {
        Opened first = open(config(), FileSync.FORCE);
        commit(first, 1, 20);
        first.storage().close();
        Path segment = onlySegment();
        cut(segment, Files.size(segment) - 7);

        Opened second = open(config(), FileSync.FORCE);
        assertThat(second.recovered().seq()).isEqualTo(19);
        commit(second, 20, 25); // the log goes on after the cut
        second.storage().close();

        Opened third = open(config(), FileSync.FORCE);
        third.storage().close();
        assertThat(third.recovered().seq()).isEqualTo(25);
        assertThat(root(third.stage())).isEqualTo(root(second.stage()));
    }

    @Test
    void shouldCutALastRecordWhoseChecksumFailsWithNothingAfterIt() throws IOException {
        Opened first = open(config(), FileSync.FORCE);
        commit(first, 1, 20);
        first.storage().close();
        Path segment = onlySegment();
        flipByte(segment, Files.size(segment) - 3);

        Opened second = open(config(), FileSync.FORCE);
        second.storage().close();
        assertThat(second.recovered().seq()).isEqualTo(19);
    }

    @Test
    void shouldRefuseABitFlipInTheMiddleNamingTheFileAndOffset() throws IOException {
        Opened first = open(config(), FileSync.FORCE);
        ExecutionStage reference = Counters.newStage();
        List<LoggedBatch> logged = Counters.run(reference, 1, 20, KEYS);
        commit(first, 1, 20);
        first.storage().close();
        Path segment = onlySegment();
        long offset = offsetOf(logged, 10);
        flipByte(segment, offset + 30);

        Storage storage = new Storage(config(), "node 0", FileSync.FORCE);
        assertThatThrownBy(() -> storage.recover(Counters.newStage()))
                .isInstanceOf(CorruptStorageException.class)
                .hasMessageContaining(segment.toString())
                .hasMessageContaining("offset " + offset)
                .hasMessageContaining("move " + dir + " away");
        assertThat(Files.size(segment)).isGreaterThan(offset); // nothing cut
    }

    @Test
    void shouldRecoverThePrefixThatReachedTheDiskWithSyncNone() throws IOException {
        StorageConfig none = config().withSync(Sync.NONE, Duration.ofMillis(10));
        Opened first = open(none, FileSync.FORCE);
        commit(first, 1, 30);
        first.storage().close();
        Path segment = onlySegment();
        byte[] whole = Files.readAllBytes(segment);
        ExecutionStage reference = Counters.newStage();
        List<LoggedBatch> logged = Counters.run(reference, 1, 30, KEYS);
        for (long lost : new long[] {1, 40, 333, 1000, whole.length - offsetOf(logged, 12)}) {
            Files.write(segment, whole);
            cut(segment, whole.length - lost);
            long complete = logged.stream()
                    .filter(batch -> offsetOf(logged, batch.seq())
                                    + LogRecords.encode(batch).remaining()
                            <= whole.length - lost)
                    .count();
            Opened again = open(none, FileSync.FORCE);
            again.storage().close();
            assertThat(again.recovered().seq()).as("losing %d bytes", lost).isEqualTo(complete);
            ExecutionStage expected = Counters.newStage();
            Counters.run(expected, 1, complete, KEYS);
            assertThat(root(again.stage())).isEqualTo(root(expected));
        }
    }

    @Test
    void shouldStopReplayAtATokenThatDiffersAndCutTheLogThere() {
        Opened first = open(config(), FileSync.FORCE);
        List<LoggedBatch> logged = Counters.run(first.stage(), 1, 10, KEYS);
        for (LoggedBatch batch : logged) {
            Token token = batch.seq() == 6 ? Token.of(6, Digest.ZERO, Digest.ZERO, Digest.ZERO) : batch.token();
            first.storage().append(new LoggedBatch(batch.view(), false, batch.batch(), token));
        }
        first.storage().close();

        Opened second = open(config(), FileSync.FORCE);
        assertThat(second.recovered().seq()).isEqualTo(5);
        commit(second, 6, 8);
        second.storage().close();
        Opened third = open(config(), FileSync.FORCE);
        third.storage().close();
        assertThat(third.recovered().seq()).isEqualTo(8);
    }
}
