package io.eve.samples.statedemo;

import io.eve.merkle.graph.Replicated;
import io.eve.merkle.graph.ReplicatedMap;
import io.eve.merkle.graph.StateObject;

/**
 * The demo's state: the key-value store of Eve §7.2 (object id to a fixed-size value) in a replicated map,
 * next to plain annotated counters whose writes the build step tracks.
 */
@Replicated(name = "demo.Store")
public final class Store extends StateObject {
    ReplicatedMap<Long, byte[]> objects;
    Stats stats;

    Store() {}

    static Store create(int objects, int valueSize) {
        Store store = new Store();
        store.objects = new ReplicatedMap<>();
        for (long id = 0; id < objects; id++) {
            store.objects.put(id, Values.initial(id, valueSize));
        }
        store.stats = new Stats();
        return store;
    }

    /** Counters updated by every write: an annotated object, so writes to it are tracked. */
    @Replicated(name = "demo.Stats")
    public static final class Stats extends StateObject {
        long writes;
        long bytesWritten;

        Stats() {}
    }
}
