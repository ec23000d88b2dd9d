package io.eve.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.execution.ExecutionStage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BatchLogTest {
    @TempDir
    Path dir;

    /**
     * A group of records that crosses a segment boundary is one force of the new segment; the full segment's
     * records must have been forced when the log moved on, or a reply could go before its batch is on disk.
     */
    @Test
    void shouldForceTheFullSegmentWhenTheLogMovesToTheNextOne() throws IOException {
        ExecutionStage stage = Counters.newStage();
        List<LoggedBatch> batches = Counters.run(stage, 1, 2, 4);
        // At each force, where the records of the newest segment end (a force is of that segment, or of the
        // folder just after the segment's creation, which then holds its header only).
        List<Long> forcedRecordEnds = new ArrayList<>();
        FileSync recording = channel -> {
            forcedRecordEnds.add(recordsEnd(Files.readAllBytes(newestSegment())));
            channel.force(false);
        };
        BatchLog log = new BatchLog(dir, recording, 1); // every append fills its segment
        log.append(batches.get(0));
        long firstSegment = BatchLog.SEGMENT_HEADER_BYTES
                + LogRecords.encode(batches.get(0)).remaining();
        log.append(batches.get(1)); // moves to the second segment
        log.force();
        long secondSegment = BatchLog.SEGMENT_HEADER_BYTES
                + LogRecords.encode(batches.get(1)).remaining();

        assertThat(forcedRecordEnds)
                .as(
                        "the first segment (%d bytes) forced before the log moved on, then the second (%d)",
                        firstSegment, secondSegment)
                .containsSubsequence(firstSegment, secondSegment);
        log.close();
    }

    /** The point of the zeros written ahead: a force after an append finds the file's size unchanged. */
    @Test
    void shouldAppendWithinZerosWrittenAheadSoThatAForceChangesNoFileSize() throws IOException {
        List<LoggedBatch> batches = Counters.run(Counters.newStage(), 1, 20, 4);
        List<Long> sizesAtForce = new ArrayList<>();
        FileSync recording = channel -> {
            sizesAtForce.add(channel.size());
            channel.force(false);
        };
        BatchLog log = new BatchLog(dir, recording, 64L << 20);
        for (LoggedBatch batch : batches) {
            log.append(batch);
            log.force();
        }
        List<Long> segmentSizes = sizesAtForce.subList(sizesAtForce.size() - batches.size(), sizesAtForce.size());
        assertThat(segmentSizes)
                .as("the segment's size at each of the %d forces", batches.size())
                .containsOnly(segmentSizes.get(0));
        assertThat(segmentSizes.get(0)).isGreaterThanOrEqualTo(BatchLog.PREALLOCATE_BYTES);

        long records = BatchLog.SEGMENT_HEADER_BYTES
                + batches.stream()
                        .mapToLong(b -> LogRecords.encode(b).remaining())
                        .sum();
        log.close();
        assertThat(Files.size(onlySegment()))
                .as("a closed segment holds its records and nothing after them")
                .isEqualTo(records);
    }

    /** A crash leaves the zeros after the records: recovery reads them as the clean end, cutting nothing. */
    @Test
    void shouldRecoverEveryRecordOfASegmentLeftWithItsZerosByACrash() throws IOException {
        crashAfterAppending(Counters.run(Counters.newStage(), 1, 10, 4));
        Path segment = onlySegment();
        long size = Files.size(segment);

        List<Long> replayed = new ArrayList<>();
        BatchLog recovered = new BatchLog(dir, FileSync.FORCE, 64L << 20);
        long last = recovered.recover(0, false, (batch, file, offset) -> replayed.add(batch.seq()));

        assertThat(last).isEqualTo(10);
        assertThat(replayed).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
        assertThat(Files.size(segment)).as("nothing cut").isEqualTo(size);
        // The log goes on in a new segment, and the old one, zeros and all, still reads in full.
        recovered.append(Counters.run(Counters.newStage(), 1, 11, 4).get(10));
        recovered.close();
        List<Long> again = new ArrayList<>();
        new BatchLog(dir, FileSync.FORCE, 64L << 20).recover(0, true, (batch, file, offset) -> again.add(batch.seq()));
        assertThat(again).hasSize(11).endsWith(11L);
    }

    /** A record torn by a crash, with the zeros written ahead after it, is cut; the records before it stay. */
    @Test
    void shouldCutARecordTornInTheMiddleOfTheZeros() throws IOException {
        List<LoggedBatch> batches = Counters.run(Counters.newStage(), 1, 5, 4);
        crashAfterAppending(batches);
        Path segment = onlySegment();
        long lastRecord = BatchLog.SEGMENT_HEADER_BYTES
                + batches.subList(0, 4).stream()
                        .mapToLong(b -> LogRecords.encode(b).remaining())
                        .sum();
        long lastLength = LogRecords.encode(batches.get(4)).remaining();
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.WRITE)) {
            // The second half of the last record never reached the disk: zeros there, as written ahead.
            ByteBuffer zeros = ByteBuffer.allocate((int) (lastLength / 2));
            channel.write(zeros, lastRecord + lastLength - zeros.capacity());
        }

        List<Long> replayed = new ArrayList<>();
        long last = new BatchLog(dir, FileSync.FORCE, 64L << 20)
                .recover(0, false, (batch, file, offset) -> replayed.add(batch.seq()));

        assertThat(last).isEqualTo(4);
        assertThat(replayed).containsExactly(1L, 2L, 3L, 4L);
        assertThat(Files.size(segment)).as("cut at the torn record").isEqualTo(lastRecord);
    }

    /** Appends {@code batches} to a new log and forces them, never closing it: the process dies there. */
    private void crashAfterAppending(List<LoggedBatch> batches) throws IOException {
        BatchLog crashed = new BatchLog(dir, FileSync.FORCE, 64L << 20);
        for (LoggedBatch batch : batches) {
            crashed.append(batch);
        }
        crashed.force();
    }

    private Path newestSegment() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith("segment-"))
                    .max(Path::compareTo)
                    .orElseThrow();
        }
    }

    private Path onlySegment() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> segments = files.filter(p -> p.getFileName().toString().startsWith("segment-"))
                    .toList();
            assertThat(segments).hasSize(1);
            return segments.get(0);
        }
    }

    /** Where the records of a segment end: after the header, record by record, up to zeros or the file's end. */
    private static long recordsEnd(byte[] segment) {
        ByteBuffer bytes = ByteBuffer.wrap(segment);
        int offset = BatchLog.SEGMENT_HEADER_BYTES;
        while (offset + LogRecords.HEADER_BYTES <= bytes.capacity()) {
            int length = bytes.getInt(offset);
            if (length < 1) {
                break;
            }
            offset += LogRecords.HEADER_BYTES + length;
        }
        return offset;
    }
}
