package io.eve.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.execution.ExecutionStage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
        // Sizes of the regular files forced (a directory's force is the entry's creation, not its records).
        List<Long> forcedFileSizes = new ArrayList<>();
        FileSync recording = channel -> {
            long size = channel.size();
            if (size < 4096) {
                forcedFileSizes.add(size);
            }
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

        assertThat(forcedFileSizes)
                .as(
                        "the first segment (%d bytes) forced before the log moved on, then the second (%d)",
                        firstSegment, secondSegment)
                .containsSubsequence(firstSegment, secondSegment);
        log.close();
    }
}
