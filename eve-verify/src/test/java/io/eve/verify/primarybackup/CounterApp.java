package io.eve.verify.primarybackup;

import io.eve.Application;
import io.eve.ExecutionContext;
import io.eve.merkle.VersionedState;
import io.eve.merkle.graph.ObjectGraphState;
import io.eve.merkle.graph.ReplicatedMap;
import io.eve.mixer.ConflictKeys;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test application: counters in a replicated map. "add:k:n" adds n to counter k and returns the new
 * value; "get:k" reads it; "fail:x" throws; "move:a:b:n" moves n from counter a to counter b, and "movefail:a:b:n"
 * debits a, then throws before crediting b. {@link #corruptNext} makes the next adds on this replica
 * add a wrong amount, once each: a divergence confined to one replica. A nonzero {@link #skew} is added to
 * every add on this replica for as long as it is set: nondeterminism outside the execution context (a value
 * read from the machine, say), which sequential re-execution does not cure.
 */
public final class CounterApp implements Application {
    public final ObjectGraphState state = ObjectGraphState.builder().build();
    public final ReplicatedMap<Long, Long> counters = new ReplicatedMap<>();
    public final AtomicInteger corruptNext = new AtomicInteger();
    public volatile long skew;

    /** Adds run one at a time (a correct, synchronized application), after this replica's own delay. */
    volatile boolean atomicAdds;

    /** Clients whose adds wait a moment on this replica first: interleavings differ between replicas. */
    volatile long slowClientParity = -1;

    public CounterApp() {
        state.setRoot("counters", counters);
    }

    public static byte[] add(long key, long amount) {
        return ("add:" + key + ":" + amount).getBytes(StandardCharsets.UTF_8);
    }

    public static byte[] move(long from, long to, long amount, boolean failAfterDebit) {
        String verb = failAfterDebit ? "movefail" : "move";
        return (verb + ":" + from + ":" + to + ":" + amount).getBytes(StandardCharsets.UTF_8);
    }

    public static byte[] get(long key) {
        return ("get:" + key).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public VersionedState state() {
        return state;
    }

    @Override
    public ConflictKeys conflictKeys(byte[] payload) {
        String[] parts = new String(payload, StandardCharsets.UTF_8).split(":");
        if (parts[0].equals("fail")) {
            return ConflictKeys.none();
        }
        if (parts[0].startsWith("move")) {
            return ConflictKeys.writing(Long.parseLong(parts[1]), Long.parseLong(parts[2]));
        }
        long key = Long.parseLong(parts[1]);
        return parts[0].equals("add") ? ConflictKeys.writing(key) : ConflictKeys.reading(key);
    }

    @Override
    public byte[] execute(byte[] payload, ExecutionContext context) {
        String[] parts = new String(payload, StandardCharsets.UTF_8).split(":");
        switch (parts[0]) {
            case "add" -> {
                long key = Long.parseLong(parts[1]);
                long amount = Long.parseLong(parts[2]);
                if (corruptNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                    amount += 1000;
                }
                amount += skew;
                if (slowClientParity >= 0 && context.clientId() % 2 == slowClientParity) {
                    pause();
                }
                if (atomicAdds) {
                    synchronized (counters) {
                        return addTo(key, amount);
                    }
                }
                return addTo(key, amount);
            }
            case "get" -> {
                Long current = counters.get(Long.parseLong(parts[1]));
                return Long.toString(current == null ? 0 : current).getBytes(StandardCharsets.UTF_8);
            }
            case "move", "movefail" -> {
                long amount = Long.parseLong(parts[3]);
                addTo(Long.parseLong(parts[1]), -amount);
                if (parts[0].equals("movefail")) {
                    throw new IllegalStateException("refused to credit " + parts[2] + " after debiting " + parts[1]);
                }
                return addTo(Long.parseLong(parts[2]), amount);
            }
            default -> throw new IllegalArgumentException("unknown operation " + parts[0]);
        }
    }

    private byte[] addTo(long key, long amount) {
        Long current = counters.get(key);
        long next = (current == null ? 0 : current) + amount;
        counters.put(key, next);
        return Long.toString(next).getBytes(StandardCharsets.UTF_8);
    }

    private static void pause() {
        try {
            Thread.sleep(2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
