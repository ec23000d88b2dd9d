package io.eve.samples.kv;

import io.eve.merkle.graph.ImmutableBytes;
import io.eve.merkle.graph.Replicated;
import io.eve.merkle.graph.StateObject;

/**
 * One object of the store: an annotated state object whose writes the eve-enhance build step tracks, so
 * the store never calls {@code modify}. Written only by the executor thread running the request that
 * declared it as written.
 */
@Replicated(name = "kv.Object")
final class KvObject extends StateObject {
    /** How many updates the object has seen. */
    long version;

    /** The object's content; immutable, so it changes only by assigning a new value (a tracked write). */
    ImmutableBytes value;

    private KvObject() {}

    KvObject(ImmutableBytes value) {
        this.value = value;
    }
}
