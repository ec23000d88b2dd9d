package io.eve.bench.tracking;

import io.eve.merkle.graph.Replicated;
import io.eve.merkle.graph.StateObject;

/** An enhanced counter: writes to {@link #value} go through the write barrier. */
@Replicated(name = "bench.Counter")
public final class TrackedCounter extends StateObject {
    long value;

    TrackedCounter() {}

    static TrackedCounter create() {
        return new TrackedCounter();
    }
}
