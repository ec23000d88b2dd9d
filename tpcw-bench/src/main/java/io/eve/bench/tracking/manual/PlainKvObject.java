package io.eve.bench.tracking.manual;

import io.eve.merkle.graph.ObjectGraphState;
import io.eve.merkle.graph.Replicated;
import io.eve.merkle.graph.StateObject;

/** The unenhanced twin of the tracked key-value object, updated after an explicit modify. */
@Replicated(name = "bench.KvObject")
public final class PlainKvObject extends StateObject {
    long version;
    String value;

    PlainKvObject() {}

    /** An object holding {@code value}. */
    public PlainKvObject(String value) {
        this.value = value;
    }

    /** Marks the object, then writes it; returns the new version. */
    public long update(ObjectGraphState state, String newValue) {
        state.modify(this);
        value = newValue;
        return ++version;
    }
}
