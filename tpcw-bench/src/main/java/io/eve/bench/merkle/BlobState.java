package io.eve.bench.merkle;

import io.eve.merkle.graph.ObjectGraphState;
import java.util.Random;

/** The benchmark state: {@link #OBJECTS} blobs, of which a batch writes {@link #DIRTY} chosen at random. */
final class BlobState {
    static final int OBJECTS = 4096;
    static final int DIRTY = 1024;

    final ObjectGraphState state;
    final Blob[] dirty;

    BlobState(int objectSize, boolean parallelHashing) {
        state = ObjectGraphState.builder()
                .gcInterval(0)
                .parallelThreshold(parallelHashing ? 256 : Integer.MAX_VALUE)
                .manualTracking(true) // benchmarks of modify itself, on payloads written in place
                .register(Blob.class, BlobTable.class)
                .build();
        BlobTable table = new BlobTable(OBJECTS, objectSize);
        state.setRoot("table", table);
        state.seal(0);
        Random random = new Random(42);
        dirty = new Blob[DIRTY];
        boolean[] chosen = new boolean[OBJECTS];
        for (int i = 0; i < DIRTY; ) {
            int pick = random.nextInt(OBJECTS);
            if (!chosen[pick]) {
                chosen[pick] = true;
                dirty[i++] = table.blobs[pick];
            }
        }
    }

    /** One batch's writes: modify, then change every dirty blob. */
    void writeBatch() {
        for (Blob blob : dirty) {
            state.modify(blob);
            blob.touch();
        }
    }
}
