package io.eve.bench.tracking;

import io.eve.merkle.graph.Replicated;
import io.eve.merkle.graph.StateObject;

/** A key-value object whose writes the build step tracks. */
@Replicated(name = "bench.KvObject")
public final class TrackedKvObject extends StateObject {
    long version;
    String value;

    TrackedKvObject() {}

    TrackedKvObject(String value) {
        this.value = value;
    }

    long update(String newValue) {
        value = newValue;
        return ++version;
    }
}
