package io.eve.verify.sim;

import io.eve.Application;
import io.eve.ExecutionContext;
import io.eve.merkle.VersionedState;
import io.eve.merkle.graph.ObjectGraphState;
import io.eve.merkle.graph.ReplicatedMap;
import io.eve.mixer.ConflictKeys;
import java.nio.charset.StandardCharsets;

/**
 * The simulated service: one counter per key in a replicated map. {@code add:k:n} adds n to counter k and
 * answers the new value. Setting {@link #corruptNext} makes the next adds on this replica only add 1000
 * too much, one per count: a commission fault confined to one replica.
 *
 * <p>Runs on the simulator's thread only (the simulator's executor runs requests inline).
 */
final class SimCounter implements Application {
    private static final String ROOT = "counters";
    private final ObjectGraphState state = ObjectGraphState.builder().build();
    int corruptNext;
    long corruptionsDone;

    SimCounter() {
        state.setRoot(ROOT, new ReplicatedMap<Long, Long>());
    }

    static byte[] add(long key, long amount) {
        return ("add:" + key + ":" + amount).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public VersionedState state() {
        return state;
    }

    @Override
    public ConflictKeys conflictKeys(byte[] payload) {
        return ConflictKeys.writing(Long.parseLong(parts(payload)[1]));
    }

    @Override
    public byte[] execute(byte[] payload, ExecutionContext context) {
        String[] parts = parts(payload);
        if (!parts[0].equals("add")) {
            throw new IllegalArgumentException("unknown operation " + parts[0]);
        }
        long key = Long.parseLong(parts[1]);
        long amount = Long.parseLong(parts[2]);
        if (corruptNext > 0) {
            corruptNext--;
            corruptionsDone++;
            amount += 1000;
        }
        ReplicatedMap<Long, Long> counters = counters();
        Long current = counters.get(key);
        long next = (current == null ? 0 : current) + amount;
        counters.put(key, next);
        return Long.toString(next).getBytes(StandardCharsets.UTF_8);
    }

    /** The counter of {@code key} in the current (possibly tentative) state. */
    long counter(long key) {
        Long value = counters().get(key);
        return value == null ? 0 : value;
    }

    @SuppressWarnings("unchecked")
    private ReplicatedMap<Long, Long> counters() {
        return state.root(ROOT, ReplicatedMap.class);
    }

    private static String[] parts(byte[] payload) {
        return new String(payload, StandardCharsets.UTF_8).split(":");
    }
}
