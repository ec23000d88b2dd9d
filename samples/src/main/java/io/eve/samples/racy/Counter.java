package io.eve.samples.racy;

import io.eve.merkle.graph.Replicated;
import io.eve.merkle.graph.ReplicatedMap;
import io.eve.merkle.graph.StateObject;

/**
 * The racy counter's state: the shared count, an annotated field whose writes the build step tracks, and for
 * each client the count its last increment read, in a replicated map. The map makes a lost update visible
 * in the state even when two replicas happen to lose the same number of updates.
 */
@Replicated(name = "racy.Counter")
final class Counter extends StateObject {
    long value;
    ReplicatedMap<Long, Long> lastReadByClient;

    private Counter() {}

    static Counter create() {
        Counter counter = new Counter();
        counter.lastReadByClient = new ReplicatedMap<>();
        return counter;
    }
}
