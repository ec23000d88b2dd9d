package io.eve.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.execution.ExecutionStage;
import io.eve.merkle.Digest;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Disk faults against real files (issue 21): a directory written as a replica writes it (several log segments,
 * a chain of checkpoints and its manifest), then damaged as a crash or a failing disk would leave it, and
 * recovered into a fresh stage. Invariant for every fault: the replica either refuses to start with a
 * {@link CorruptStorageException} naming the damaged file, or recovers a state that equals the reference state
 * of the batch it says it recovered; a torn or lost suffix (what a crash with {@code sync=interval} or
 * {@code none} leaves) costs only the batches in it. The primary-backup simulator models a disk as the state of
 * the last committed batch, too abstract for torn writes and flipped bits, so they are tested here.
 */
@Timeout(120)
class DiskFaultTest {
    private static final int KEYS = 40;
    private static final long BATCHES = 120;
    private static final int FLIPS = 200;

    @TempDir
    Path dir;

    /** The directory as written, file by file, restored before each fault. */
    private final Map<Path, byte[]> written = new HashMap<>();
    /** The reference root of every batch 0..BATCHES. */
    private final List<Digest> roots = new ArrayList<>();

    private StorageConfig config() {
        // Small segments and frequent checkpoints: every kind of file exists, several of each.
        return StorageConfig.of(dir).withCheckpoints(25, 3).withSegmentBytes(2_048);
    }

    @BeforeEach
    void writeTheDirectory() throws IOException {
        Storage storage = new Storage(config(), "node 0", FileSync.FORCE);
        ExecutionStage stage = Counters.newStage();
        storage.recover(stage);
        storage.start(seq -> {}, failure -> {});
        for (long seq = 1; seq <= BATCHES; seq++) {
            LoggedBatch batch = Counters.run(stage, seq, seq, KEYS).get(0);
            storage.append(batch);
            storage.onStable(stage, seq, batch.view());
        }
        storage.close();
        ExecutionStage reference = Counters.newStage();
        roots.add(reference.state().rootAt(0));
        for (long seq = 1; seq <= BATCHES; seq++) {
            Counters.run(reference, seq, seq, KEYS);
            roots.add(reference.state().rootAt(seq));
        }
        for (Path file : files()) {
            written.put(file, Files.readAllBytes(file));
        }
        assertThat(segments()).as("log segments").hasSizeGreaterThan(2);
        assertThat(files().stream().filter(f -> name(f).startsWith("checkpoint-")))
                .as("checkpoints")
                .isNotEmpty();
    }

    @Test
    void shouldRecoverEveryBatchFromAnUndamagedDirectory() throws IOException {
        assertThat(recover().seq()).isEqualTo(BATCHES);
    }

    @Test
    void shouldLoseOnlyTheCutSuffixWhereverTheLastSegmentIsCut() throws IOException {
        Path last = segments().get(segments().size() - 1);
        int length = written.get(last).length;
        List<Integer> ends = recordEnds(written.get(last));
        for (int cut = 0; cut < length; cut++) {
            if (!nearAnEnd(ends, cut) && cut % 11 != 0) {
                continue; // every byte around a record boundary, a sample of the rest
            }
            restore();
            truncate(last, cut);
            Recovered recovered = recover();
            int kept = cut;
            long whole = ends.stream().filter(end -> end <= kept).count();
            assertThat(recovered.seq())
                    .as("the last segment cut to %d of %d bytes (%d whole records)", cut, length, whole)
                    .isEqualTo(Math.max(latestCheckpoint(), BATCHES - (ends.size() - whole)));
        }
    }

    @Test
    void shouldRefuseOrRecoverTheRightStateWhateverSingleBitFlips() throws IOException {
        SplittableRandom random = new SplittableRandom(21);
        int refused = 0;
        for (int trial = 0; trial < FLIPS; trial++) {
            restore();
            List<Path> files = files();
            Path file = files.get(random.nextInt(files.size()));
            byte[] bytes = written.get(file).clone();
            int offset = random.nextInt(bytes.length);
            int bit = random.nextInt(8);
            bytes[offset] ^= (byte) (1 << bit);
            Files.write(file, bytes);
            String fault = String.format("bit %d of byte %d of %s flipped", bit, offset, name(file));
            try {
                Recovered recovered = recover();
                // Only the last record of the last segment may go: a flip there looks like a torn write.
                assertThat(recovered.seq()).as(fault).isGreaterThanOrEqualTo(BATCHES - 1);
            } catch (CorruptStorageException e) {
                refused++;
                assertThat(e.getMessage()).as(fault).contains(name(file));
            }
        }
        assertThat(refused).as("flips refused of %d", FLIPS).isGreaterThan(FLIPS / 2);
    }

    @Test
    void shouldRefuseALengthFieldFlippedInTheMiddleOfTheLastSegment() throws IOException {
        Path last = segments().get(segments().size() - 1);
        List<Integer> ends = recordEnds(written.get(last));
        assertThat(ends).as("records in the last segment").hasSizeGreaterThan(2);
        int record = ends.get(0); // the second record's header: records follow it
        for (int flip : new int[] {0x40, 0x01}) { // a length past the end, then one that is too short by one
            restore();
            byte[] bytes = written.get(last).clone();
            bytes[record + (flip == 0x40 ? 0 : 3)] ^= (byte) flip;
            Files.write(last, bytes);
            assertThatThrownBy(this::recover)
                    .as("length byte xor %#x", flip)
                    .isInstanceOf(CorruptStorageException.class)
                    .hasMessageContaining(name(last))
                    .hasMessageContaining("offset " + record);
        }
    }

    @Test
    void shouldRefuseAMissingSegmentNamingTheBatchThatIsMissing() throws IOException {
        List<Path> segments = segments();
        Path missing = segments.get(segments.size() - 2);
        Files.delete(missing);
        assertThatThrownBy(this::recover)
                .isInstanceOf(CorruptStorageException.class)
                .hasMessageContaining(name(segments.get(segments.size() - 1)))
                .hasMessageContaining("was expected");
    }

    @Test
    void shouldRefuseACheckpointTheManifestNamesThatIsMissing() throws IOException {
        Path checkpoint = files().stream()
                .filter(f -> name(f).startsWith("checkpoint-"))
                .findFirst()
                .orElseThrow();
        Files.delete(checkpoint);
        assertThatThrownBy(this::recover).isInstanceOf(StorageException.class).hasMessageContaining(name(checkpoint));
    }

    /** Recovers the directory into a fresh stage and checks its state against the reference. */
    private Recovered recover() {
        Storage storage = new Storage(config(), "node 0", FileSync.FORCE);
        ExecutionStage stage = Counters.newStage();
        try {
            Recovered recovered = storage.recover(stage);
            assertThat(stage.state().rootAt(stage.stableSeq()))
                    .as("the state recovered at batch %d", recovered.seq())
                    .isEqualTo(roots.get((int) recovered.seq()));
            assertThat(stage.stableSeq()).isEqualTo(recovered.seq());
            return recovered;
        } finally {
            storage.close();
        }
    }

    private static boolean nearAnEnd(List<Integer> ends, int offset) {
        return offset < BatchLog.SEGMENT_HEADER_BYTES + 2
                || ends.stream().anyMatch(end -> Math.abs(end - offset) <= LogRecords.HEADER_BYTES);
    }

    /** Where each record of a segment ends (its header before the first). */
    private static List<Integer> recordEnds(byte[] segment) {
        List<Integer> ends = new ArrayList<>();
        int offset = BatchLog.SEGMENT_HEADER_BYTES;
        while (offset < segment.length) {
            int length = java.nio.ByteBuffer.wrap(segment, offset, 4).getInt();
            offset += LogRecords.HEADER_BYTES + length;
            ends.add(offset);
        }
        return ends;
    }

    private void restore() throws IOException {
        for (Path file : files()) {
            if (!written.containsKey(file)) {
                Files.delete(file);
            }
        }
        for (Map.Entry<Path, byte[]> entry : written.entrySet()) {
            Files.write(entry.getKey(), entry.getValue());
        }
    }

    private List<Path> files() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(Files::isRegularFile).sorted().toList();
        }
    }

    private List<Path> segments() throws IOException {
        return files().stream().filter(f -> name(f).startsWith("segment-")).toList();
    }

    /** The batch of the latest checkpoint file. */
    private long latestCheckpoint() throws IOException {
        return files().stream()
                .map(DiskFaultTest::name)
                .filter(name -> name.startsWith("checkpoint-"))
                .mapToLong(name -> Long.parseLong(name.replaceAll("\\D", "")))
                .max()
                .orElse(0);
    }

    private static String name(Path file) {
        return file.getFileName().toString();
    }

    private static void truncate(Path file, long length) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(length);
        }
    }
}
