package io.eve.bench.merkle;

import io.eve.merkle.graph.Replicated;
import io.eve.merkle.graph.StateObject;

/** The root of the benchmark state: a fixed array of blobs. */
@Replicated(name = "bench.BlobTable")
public final class BlobTable extends StateObject {
    Blob[] blobs;

    BlobTable() {}

    BlobTable(int count, int size) {
        blobs = new Blob[count];
        for (int i = 0; i < count; i++) {
            blobs[i] = new Blob(size, i);
        }
    }
}
