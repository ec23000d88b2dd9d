package io.eve.samples.kv;

import io.eve.merkle.graph.Replicated;
import io.eve.merkle.graph.ReplicatedMap;
import io.eve.merkle.graph.StateObject;

/**
 * The store's root: the objects by id, in a replicated map (a raw array's elements could be written
 * without tracking, so registration refuses one). The map's entries never change after the store is
 * built; only the objects they name do.
 */
@Replicated(name = "kv.Root")
final class KvRoot extends StateObject {
    ReplicatedMap<Long, KvObject> objects;

    private KvRoot() {}

    KvRoot(ReplicatedMap<Long, KvObject> objects) {
        this.objects = objects;
    }
}
