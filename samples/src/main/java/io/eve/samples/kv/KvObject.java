package io.eve.samples.kv;

import io.eve.merkle.graph.Replicated;
import io.eve.merkle.graph.StateObject;

/**
 * One object of the store: an annotated state object, so every write goes through
 * {@link io.eve.merkle.graph.ObjectGraphState#modify} first. Written only by the executor thread running
 * the request that declared it as written.
 */
@Replicated(name = "kv.Object")
final class KvObject extends StateObject {
    /** How many updates the object has seen. */
    long version;

    /** The object's content; replaced, never changed in place, so a reply can hand out a copy safely. */
    byte[] value;

    private KvObject() {}

    KvObject(byte[] value) {
        this.value = value;
    }
}
