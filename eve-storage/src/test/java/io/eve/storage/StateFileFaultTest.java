package io.eve.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Disk faults against a {@link StateFile} journal (decision 0032): a file written as a node writes it, then
 * damaged as a crash or a failing disk would leave it. Invariant: {@link StateFile#read} either refuses with a
 * {@link CorruptStorageException} naming the file, or returns the latest record written; only a last write
 * torn by a crash (never reported durable) may give the record before it.
 */
@Timeout(120)
class StateFileFaultTest {
    private static final int SMALL_FILE = 4_096;
    private static final int RECORDS = 40;

    @TempDir
    Path dir;

    private final AtomicInteger forces = new AtomicInteger();

    private StateFile file() {
        return new StateFile(
                dir.resolve("node-0").resolve("verifier.state"),
                "restore it",
                channel -> {
                    forces.incrementAndGet();
                    channel.force(false);
                },
                SMALL_FILE);
    }

    private static byte[] record(int i) {
        return String.format("record %03d %s", i, "x".repeat(90)).getBytes(StandardCharsets.UTF_8);
    }

    private static int copySize() {
        return JournalFormat.COPY_OVERHEAD + record(1).length;
    }

    /** Writes records 1..count through one instance (a new file is started on the way) and closes it. */
    private StateFile written(int count) throws IOException {
        StateFile file = file();
        for (int i = 1; i <= count; i++) {
            file.write(record(i));
        }
        file.close();
        return file;
    }

    private String read(StateFile file) {
        return new String(file.read().orElseThrow(), StandardCharsets.UTF_8);
    }

    /** Where the last pair starts: the pairs fill the file from its header on, one file per 32 records. */
    private int lastPairOffset(byte[] bytes) {
        int pair = 2 * copySize();
        int at = JournalFormat.HEADER_BYTES;
        while (at + pair < bytes.length && JournalFormat.copyAt(bytes, at + pair, bytes.length) != null) {
            at += pair;
        }
        return at;
    }

    @Test
    void shouldForceOnceForEachRecordAndOnceMoreForEachNewFile() throws IOException {
        StateFile file = written(RECORDS);
        // 32 records of this size fit a file; the 1st and the 33rd start one, which also forces the folder.
        assertThat(forces.get()).isEqualTo(RECORDS + 2);
        assertThat(file.forces()).isEqualTo(RECORDS + 2);
        assertThat(read(file)).isEqualTo(new String(record(RECORDS), StandardCharsets.UTF_8));
        assertThat(Files.size(file.file())).isEqualTo(32L * 2 * copySize() + JournalFormat.HEADER_BYTES);
        assertThat(Files.exists(file.file().resolveSibling("verifier.state.tmp")))
                .isFalse();
    }

    @Test
    void shouldReadTheLatestRecordWhateverSingleBitFlipsOutsideTheHeader() throws IOException {
        StateFile file = written(RECORDS);
        byte[] clean = Files.readAllBytes(file.file());
        String latest = new String(record(RECORDS), StandardCharsets.UTF_8);
        for (int offset = 0; offset < clean.length; offset++) {
            byte[] bytes = clean.clone();
            bytes[offset] ^= (byte) (1 << (offset % 8));
            Files.write(file.file(), bytes);
            if (offset < JournalFormat.HEADER_BYTES) {
                assertThatThrownBy(file::read)
                        .as("a flip at offset %d", offset)
                        .isInstanceOf(CorruptStorageException.class)
                        .hasMessageContaining(file.file().toString());
            } else {
                assertThat(read(file)).as("a flip at offset %d", offset).isEqualTo(latest);
            }
        }
    }

    @Test
    void shouldKeepTheRecordBeforeALastWriteTornAnywhere() throws IOException {
        StateFile before = written(RECORDS - 1);
        byte[] old = Files.readAllBytes(before.file());
        StateFile after = written(RECORDS);
        byte[] full = Files.readAllBytes(after.file());
        int start = lastPairOffset(full);
        int pair = 2 * copySize();
        assertThat(Arrays.equals(old, 0, start, full, 0, start)).isTrue();
        String previous = new String(record(RECORDS - 1), StandardCharsets.UTF_8);
        String latest = new String(record(RECORDS), StandardCharsets.UTF_8);
        for (int cut = 0; cut <= pair; cut++) {
            // The write reached the disk up to the cut (the rest still the zeros written ahead) ...
            byte[] prefix = full.clone();
            Arrays.fill(prefix, start + cut, start + pair, (byte) 0);
            Files.write(after.file(), prefix);
            boolean firstWhole = Arrays.equals(prefix, start, start + copySize(), full, start, start + copySize());
            assertThat(read(after)).as("first %d bytes written", cut).isEqualTo(firstWhole ? latest : previous);
            // ... or from the cut on (the disk wrote its sectors out of order).
            byte[] suffix = full.clone();
            Arrays.fill(suffix, start, start + cut, (byte) 0);
            Files.write(after.file(), suffix);
            boolean secondWhole =
                    Arrays.equals(suffix, start + copySize(), start + pair, full, start + copySize(), start + pair);
            assertThat(read(after)).as("bytes from %d written", cut).isEqualTo(secondWhole ? latest : previous);
            assertThat(secondWhole).isEqualTo(cut <= copySize() + 3); // the length's high bytes are zeros
        }
    }

    @Test
    void shouldRefuseARecordDamagedInBothCopiesWithRecordsAfterIt() throws IOException {
        StateFile file = written(RECORDS);
        byte[] bytes = Files.readAllBytes(file.file());
        int second = JournalFormat.HEADER_BYTES + 2 * copySize();
        bytes[second + 20] ^= 0x01;
        bytes[second + copySize() + 20] ^= 0x01;
        Files.write(file.file(), bytes);
        assertThatThrownBy(file::read)
                .isInstanceOf(CorruptStorageException.class)
                .hasMessageContaining(file.file().toString())
                .hasMessageContaining("a damaged record with whole records after it");
    }

    @Test
    void shouldRefuseARecordMissingFromTheMiddle() throws IOException {
        StateFile file = written(RECORDS);
        byte[] bytes = Files.readAllBytes(file.file());
        int pair = 2 * copySize();
        int second = JournalFormat.HEADER_BYTES + pair;
        byte[] spliced = new byte[bytes.length];
        System.arraycopy(bytes, 0, spliced, 0, second);
        System.arraycopy(bytes, second + pair, spliced, second, bytes.length - second - pair);
        Files.write(file.file(), spliced);
        assertThatThrownBy(file::read)
                .isInstanceOf(CorruptStorageException.class)
                .hasMessageContaining("where record");
    }

    @Test
    void shouldRefuseAFileCutOrExtendedAnywhere() throws IOException {
        StateFile file = written(RECORDS);
        byte[] bytes = Files.readAllBytes(file.file());
        for (int length = 0; length < bytes.length; length += 7) {
            Files.write(file.file(), Arrays.copyOf(bytes, length));
            assertThatThrownBy(file::read)
                    .as("cut to %d bytes", length)
                    .isInstanceOf(CorruptStorageException.class)
                    .hasMessageContaining(file.file().toString());
        }
        Files.write(file.file(), Arrays.copyOf(bytes, bytes.length + 1));
        assertThatThrownBy(file::read).isInstanceOf(CorruptStorageException.class);
    }

    @Test
    void shouldRefuseAFileWithoutAWholeRecord() throws IOException {
        StateFile file = written(1);
        byte[] bytes = Files.readAllBytes(file.file());
        bytes[JournalFormat.HEADER_BYTES + 20] ^= 0x01;
        bytes[JournalFormat.HEADER_BYTES + copySize() + 20] ^= 0x01;
        Files.write(file.file(), bytes);
        assertThatThrownBy(file::read)
                .isInstanceOf(CorruptStorageException.class)
                .hasMessageContaining("no whole record");
    }

    @Test
    void shouldReadTheReplacedFileOfVersionOneAndWriteAJournalAfterIt() throws IOException {
        byte[] contents = "view 3".getBytes(StandardCharsets.UTF_8);
        ByteBuffer legacy = ByteBuffer.allocate(3 * Integer.BYTES + contents.length + Integer.BYTES);
        legacy.putInt(JournalFormat.LEGACY_MAGIC)
                .putInt(1)
                .putInt(contents.length)
                .put(contents);
        legacy.putInt(LogRecords.checksum(legacy.array(), 0, 3 * Integer.BYTES + contents.length));
        StateFile file = file();
        Files.createDirectories(file.file().getParent());
        Files.write(file.file(), legacy.array());
        assertThat(read(file)).isEqualTo("view 3");
        byte[] damaged = legacy.array().clone();
        damaged[13] ^= 0x01;
        Files.write(file.file(), damaged);
        assertThatThrownBy(file::read)
                .isInstanceOf(CorruptStorageException.class)
                .hasMessageContaining("checksum mismatch");
        Files.write(file.file(), legacy.array());
        file.write("view 4".getBytes(StandardCharsets.UTF_8));
        file.close();
        assertThat(ByteBuffer.wrap(Files.readAllBytes(file.file())).getInt()).isEqualTo(JournalFormat.MAGIC);
        assertThat(read(file)).isEqualTo("view 4");
    }
}
