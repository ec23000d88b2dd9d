package io.eve.verify.sim;

import io.eve.Application;
import io.eve.ExecutionContext;
import io.eve.merkle.VersionedState;
import io.eve.merkle.graph.ObjectGraphState;
import io.eve.merkle.graph.ReplicatedMap;
import io.eve.mixer.ConflictKeys;
import java.nio.charset.StandardCharsets;

/**
 * The simulated service: one number per key in a replicated map, starting at 0. {@code add:k:n} adds n to
 * it and answers the new value; {@code put:k:v} stores v and answers the value it replaced; {@code get:k}
 * answers the value. Setting {@link #corruptNext} makes the next adds on this replica only add 1000 too
 * much, one per count: a commission fault confined to one replica. {@link #staleGets} is a deliberate bug
 * for the test that shows the linearizability check fails: gets answer the value before the last write.
 *
 * <p>Runs on the simulator's thread only (the simulator's executor runs requests inline).
 */
final class SimCounter implements Application {
    private static final String ROOT = "counters";
    private final ObjectGraphState state = ObjectGraphState.builder().build();
    int corruptNext;
    long corruptionsDone;
    boolean staleGets;

    SimCounter() {
        state.setRoot(ROOT, new ReplicatedMap<Long, Long>());
    }

    static byte[] add(long key, long amount) {
        return ("add:" + key + ":" + amount).getBytes(StandardCharsets.UTF_8);
    }

    static byte[] put(long key, long value) {
        return ("put:" + key + ":" + value).getBytes(StandardCharsets.UTF_8);
    }

    static byte[] get(long key) {
        return ("get:" + key).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public VersionedState state() {
        return state;
    }

    @Override
    public ConflictKeys conflictKeys(byte[] payload) {
        String[] parts = parts(payload);
        long key = Long.parseLong(parts[1]);
        return parts[0].equals("get") ? ConflictKeys.reading(key) : ConflictKeys.writing(key);
    }

    @Override
    public byte[] execute(byte[] payload, ExecutionContext context) {
        String[] parts = parts(payload);
        long key = Long.parseLong(parts[1]);
        long current = counter(key);
        long answer;
        switch (parts[0]) {
            case "add" -> {
                long amount = Long.parseLong(parts[2]);
                if (corruptNext > 0) {
                    corruptNext--;
                    corruptionsDone++;
                    amount += 1000;
                }
                answer = current + amount;
                write(key, current, answer);
            }
            case "put" -> {
                answer = current;
                write(key, current, Long.parseLong(parts[2]));
            }
            case "get" -> answer = staleGets ? counter(previousKey(key)) : current;
            default -> throw new IllegalArgumentException("unknown operation " + parts[0]);
        }
        return Long.toString(answer).getBytes(StandardCharsets.UTF_8);
    }

    private void write(long key, long current, long next) {
        counters().put(key, next);
        if (staleGets) {
            counters().put(previousKey(key), current);
        }
    }

    /** Where {@link #staleGets} keeps the value a key held before its last write (keys are not negative). */
    private static long previousKey(long key) {
        return -1 - key;
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
