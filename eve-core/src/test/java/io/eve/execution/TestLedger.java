package io.eve.execution;

import io.eve.Application;
import io.eve.ExecutionContext;
import io.eve.merkle.VersionedState;
import io.eve.merkle.graph.ObjectGraphState;
import io.eve.merkle.graph.ReplicatedMap;
import io.eve.mixer.ConflictKeys;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A test application: "put:k:v" stores v under k and returns the previous value, "rand:k" stores a
 * number from the context's random source, "get:k" returns k's value, "clock:c" the context's
 * timestamp, batch and position, "meet:k" waits until {@link #meeting} has counted down to zero (each
 * "meet" counts once), "early:k" waits up to {@link #earlyPatienceMillis} for a "late" request and then stores
 * "early" under k, "late:k:other" returns other's value without declaring it and then lets "early" go on,
 * "boom" throws. It records which threads ran requests, how many requests it ran,
 * and the largest number of requests running at once.
 */
final class TestLedger implements Application {
    final ObjectGraphState state = ObjectGraphState.builder().build();
    final ReplicatedMap<String, String> entries = new ReplicatedMap<>();
    final Set<String> threads = ConcurrentHashMap.newKeySet();
    final java.util.concurrent.atomic.AtomicInteger running = new java.util.concurrent.atomic.AtomicInteger();
    final java.util.concurrent.atomic.AtomicInteger mostAtOnce = new java.util.concurrent.atomic.AtomicInteger();
    final java.util.concurrent.atomic.AtomicInteger executions = new java.util.concurrent.atomic.AtomicInteger();
    /** What "meet" requests count down and wait on, for at most ten seconds. */
    volatile java.util.concurrent.CountDownLatch meeting = new java.util.concurrent.CountDownLatch(0);

    /** What "late" counts down and "early" waits on. */
    final java.util.concurrent.CountDownLatch lateArrived = new java.util.concurrent.CountDownLatch(1);
    /** How long "early" waits for "late" before going on alone. */
    volatile long earlyPatienceMillis = 2_000;

    volatile long workMillis;
    /** Extra sleep of a "put" whose value is "slow". */
    volatile long slowMillis;

    TestLedger() {
        state.setRoot("entries", entries);
    }

    static byte[] text(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public VersionedState state() {
        return state;
    }

    @Override
    public ConflictKeys conflictKeys(byte[] payload) {
        String[] parts = new String(payload, StandardCharsets.UTF_8).split(":");
        return parts.length > 1 ? ConflictKeys.writing(parts[1]) : ConflictKeys.none();
    }

    @Override
    public byte[] execute(byte[] payload, ExecutionContext context) throws Exception {
        executions.incrementAndGet();
        int now = running.incrementAndGet();
        mostAtOnce.accumulateAndGet(now, Math::max);
        threads.add(Thread.currentThread().getName());
        try {
            if (workMillis > 0) {
                Thread.sleep(workMillis);
            }
            String[] parts = new String(payload, StandardCharsets.UTF_8).split(":");
            switch (parts[0]) {
                case "put" -> {
                    if (parts[2].equals("slow")) {
                        Thread.sleep(slowMillis);
                    }
                    String previous = entries.put(parts[1], parts[2]);
                    return text(previous == null ? "" : previous);
                }
                case "meet" -> {
                    meeting.countDown();
                    if (!meeting.await(10, java.util.concurrent.TimeUnit.SECONDS)) {
                        throw new IllegalStateException("the others never came: " + meeting.getCount() + " missing");
                    }
                    return text("met");
                }
                case "early" -> {
                    boolean joined = lateArrived.await(earlyPatienceMillis, java.util.concurrent.TimeUnit.MILLISECONDS);
                    entries.put(parts[1], "early");
                    return text(joined ? "joined by late" : "alone");
                }
                case "late" -> {
                    String seen = entries.get(parts[2]);
                    lateArrived.countDown();
                    return text(seen == null ? "" : seen);
                }
                case "clock" -> {
                    return text(context.timestampMillis() + "@" + context.batchSeq() + "/" + context.index());
                }
                case "get" -> {
                    String value = entries.get(parts[1]);
                    return text(value == null ? "" : value);
                }
                case "rand" -> {
                    String value = Long.toString(context.random().nextLong()) + "@" + context.timestampMillis();
                    entries.put(parts[1], value);
                    return text(value);
                }
                default -> throw new IllegalStateException("boom in batch " + context.batchSeq());
            }
        } finally {
            running.decrementAndGet();
        }
    }
}
