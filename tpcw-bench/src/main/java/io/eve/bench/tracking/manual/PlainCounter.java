package io.eve.bench.tracking.manual;

import io.eve.merkle.graph.ObjectGraphState;
import io.eve.merkle.graph.Replicated;
import io.eve.merkle.graph.StateObject;

/** The unenhanced twin of the tracked counter (the build step skips this package). */
@Replicated(name = "bench.Counter")
public final class PlainCounter extends StateObject {
    long value;

    PlainCounter() {}

    /** A new counter. */
    public static PlainCounter create() {
        return new PlainCounter();
    }

    /** The explicit way: {@code modify}, then the write. */
    public static void modifyAndIncrement(ObjectGraphState state, PlainCounter counter) {
        state.modify(counter);
        counter.value++;
    }

    /** The write alone, untracked: the floor. */
    public static void increment(PlainCounter counter) {
        counter.value++;
    }
}
