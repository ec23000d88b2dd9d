package io.eve.bench.merkle;

import io.eve.merkle.graph.Replicated;
import io.eve.merkle.graph.StateObject;

/** A state object of the key-value workload (Eve §7.2): a payload of configurable size and a counter. */
@Replicated(name = "bench.Blob")
public final class Blob extends StateObject {
    long writes;
    byte[] payload;

    Blob() {}

    Blob(int size, long seed) {
        payload = new byte[size];
        for (int i = 0; i < size; i++) {
            payload[i] = (byte) (seed * 31 + i);
        }
    }

    /** A write: the first payload byte and the counter change. */
    void touch() {
        payload[0]++;
        writes++;
    }
}
