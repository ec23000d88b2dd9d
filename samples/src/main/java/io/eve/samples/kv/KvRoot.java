package io.eve.samples.kv;

import io.eve.merkle.graph.Replicated;
import io.eve.merkle.graph.StateObject;

/** The store's root: the objects, indexed by id. The array itself never changes after the store is built. */
@Replicated(name = "kv.Root")
final class KvRoot extends StateObject {
    KvObject[] objects;

    private KvRoot() {}

    KvRoot(KvObject[] objects) {
        this.objects = objects;
    }
}
