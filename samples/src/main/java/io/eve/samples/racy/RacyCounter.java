package io.eve.samples.racy;

import io.eve.Application;
import io.eve.ExecutionContext;
import io.eve.merkle.graph.ObjectGraphState;
import io.eve.mixer.ConflictKeys;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A counter with a concurrency bug on purpose (Eve §7.4): an increment reads the count, works for a while,
 * and writes back what it read plus one, with no lock held in between. Two increments that overlap lose one update, and
 * which ones overlap depends on thread scheduling, so two replicas that race end up in different states.
 *
 * <p>Payloads are one byte: {@link #INCREMENT} (declares the counter written; answers the count it wrote)
 * or {@link #READ} (declares it read; answers the count). Answers are 8 big-endian bytes, see
 * {@link #countOf}. An increment also records, per client, the count it read.
 *
 * <p>The conflict keys are honest: under {@code KeyConflictMixer} increments never share a parallel batch
 * and the bug cannot manifest, as with Eve's standard mixer and H2. Under {@code GroupAllMixer}, which
 * ignores keys, they run together and the race shows as diverging tokens.
 *
 * <p>The race window is a busy spin of a configurable number of steps, varied per request by local timing
 * noise (like scheduling, it differs between replicas) so overlaps do not fall into a regular pattern,
 * with one
 * {@link Thread#yield} in the middle so other executor threads get to read the stale count even when the
 * replica has fewer cores than threads.
 *
 * <p>That window is the only race. Outside it an increment's read, and its check and write, each hold a
 * lock, so every lost update is seen at the write ({@link #raceLog}) and which updates are lost depends on
 * each replica's own noise. Before, two increments that both passed the check before either wrote lost one
 * unseen, in a window of a few instructions: on a loaded machine, with the three replicas of a test in one
 * JVM, that happened identically on all three (batch 61 of a failing run of
 * {@code QuorumExtraProtectionRaceIT}: increments 3 and 4 both read 84 on every replica, none saw it). A
 * bug that every replica repeats alike gives matching tokens, and no execute-verify protocol can see it
 * (Eve §6.3 masks bugs that manifest differently); it is not what this sample demonstrates.
 */
public final class RacyCounter implements Application {
    public static final byte INCREMENT = 0x01;
    public static final byte READ = 0x02;

    static final String ROOT = "racy";
    private static final String COUNTER_KEY = "racy.counter";

    private final ObjectGraphState state;
    private final int raceWindow;
    private final double raceProbability;

    /**
     * Makes an increment's read, and its check and write, each one step: the only race is the deliberate
     * one, the window of a lingering increment between the two (see the class comment).
     */
    private final Object lock = new Object();

    /** Where the spin publishes its result so the JIT keeps it; not state, never read. */
    private volatile long spinSink;

    /**
     * Diagnostics outside the replicated state, guarded by {@link #lock}: each lost update seen at a write,
     * per batch, as the write that overwrote it (its request's index, the count it read, how many updates it
     * overwrote).
     */
    private final Map<Long, List<Strike>> strikes = new HashMap<>();

    /** Diagnostics: how often each request (batch, index) was executed; twice means a rollback. */
    private final Map<Long, AtomicInteger> executions = new ConcurrentHashMap<>();

    private RacyCounter(ObjectGraphState state, int raceWindow, double raceProbability) {
        this.state = state;
        this.raceWindow = raceWindow;
        this.raceProbability = raceProbability;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The payload of an increment. */
    public static byte[] increment() {
        return new byte[] {INCREMENT};
    }

    /** The payload of a read. */
    public static byte[] read() {
        return new byte[] {READ};
    }

    /** The count in a reply. */
    public static long countOf(byte[] reply) {
        if (reply.length != Long.BYTES) {
            throw new IllegalArgumentException("a counter reply is " + Long.BYTES + " bytes, got " + reply.length);
        }
        return ByteBuffer.wrap(reply).getLong();
    }

    @Override
    public ObjectGraphState state() {
        return state;
    }

    /** The current count; call it between batches (tests, tools). */
    public long value() {
        return counter().value;
    }

    /** What the race did on this replica so far (diagnostics, not replicated state). */
    public RaceLog raceLog() {
        Map<Long, Integer> lost = new TreeMap<>();
        Map<Long, List<Strike>> struck = new TreeMap<>();
        synchronized (lock) {
            strikes.forEach((batch, list) -> {
                lost.put(
                        batch,
                        list.stream().mapToInt(strike -> (int) strike.lost()).sum());
                struck.put(batch, List.copyOf(list));
            });
        }
        Set<Long> rolledBack = new TreeSet<>();
        executions.forEach((request, count) -> {
            if (count.get() > 1) {
                rolledBack.add(request >>> 20);
            }
        });
        return new RaceLog(lost, rolledBack, struck);
    }

    /**
     * The race on one replica: updates lost per batch in its executions (every execution of the batch, a
     * rolled-back one too), the batches of which some increment ran more than once (rolled back and
     * executed again), and each batch's strikes in the order they happened.
     */
    public record RaceLog(
            Map<Long, Integer> lostByBatch, Set<Long> reExecutedBatches, Map<Long, List<Strike>> strikes) {
        public RaceLog {
            lostByBatch = Collections.unmodifiableMap(new TreeMap<>(lostByBatch));
            reExecutedBatches = Collections.unmodifiableSet(new TreeSet<>(reExecutedBatches));
            strikes = Collections.unmodifiableMap(new TreeMap<>(strikes));
        }

        /** The strikes of one batch on this replica; empty if the race never struck it here. */
        public List<Strike> strikesOf(long batch) {
            return strikes.getOrDefault(batch, List.of());
        }
    }

    /**
     * One manifestation: the increment at {@code index} of its batch read {@code read} and, when it wrote, found
     * that {@code lost} other increments had written since, and overwrote them. Two replicas whose executions of
     * a batch struck alike (same increments, same counts) end in the same state with the same replies, so their
     * tokens match and no execute-verify protocol can tell.
     */
    public record Strike(int index, long read, long lost) {}

    @Override
    public ConflictKeys conflictKeys(byte[] payload) {
        return operation(payload) == INCREMENT ? ConflictKeys.writing(COUNTER_KEY) : ConflictKeys.reading(COUNTER_KEY);
    }

    @Override
    public byte[] execute(byte[] payload, ExecutionContext context) {
        Counter counter = counter();
        if (operation(payload) == READ) {
            return encode(counter.value);
        }
        // Whether this increment lingers, and how long, is local timing noise, as scheduling is for a real
        // race: two replicas that run the same batch see different overlaps. It decides only which updates
        // race, never what a request writes given what it read.
        ThreadLocalRandom noise = ThreadLocalRandom.current();
        long read;
        synchronized (lock) {
            read = counter.value;
            if (noise.nextDouble() >= raceProbability) {
                return write(counter, context, read);
            }
        }
        spinSink = spin(read, raceWindow + noise.nextInt(raceWindow + 1));
        synchronized (lock) {
            return write(counter, context, read);
        }
    }

    /**
     * Writes {@code read + 1}, holding {@link #lock}. The bug manifests here if other increments wrote since
     * {@code read}: their updates are overwritten (as many as the count moved on), and always seen, since the
     * check and the write are one step.
     */
    private byte[] write(Counter counter, ExecutionContext context, long read) {
        long written = read + 1;
        if (counter.value != read) {
            strikes.computeIfAbsent(context.batchSeq(), b -> new ArrayList<>())
                    .add(new Strike(context.index(), read, counter.value - read));
        }
        executions
                .computeIfAbsent(context.batchSeq() << 20 | context.index(), r -> new AtomicInteger())
                .incrementAndGet();
        counter.value = written;
        counter.lastReadByClient.put(context.clientId(), read);
        return encode(written);
    }

    /** The deliberate bug's window: deterministic arithmetic seeded by the value read, so it runs after the read. */
    private static long spin(long seed, int steps) {
        long x = seed;
        for (int i = 0; i < steps; i++) {
            x = x * 0x5851F42D4C957F2DL + 0x14057B7EF767814FL;
            x ^= x >>> 29;
            if (i == steps / 2) {
                Thread.yield();
            }
        }
        return x;
    }

    private static byte operation(byte[] payload) {
        if (payload.length != 1 || (payload[0] != INCREMENT && payload[0] != READ)) {
            throw new IllegalArgumentException("a counter request is one byte, " + INCREMENT + " (INCREMENT) or "
                    + READ + " (READ); got " + payload.length + " bytes"
                    + (payload.length == 0 ? "" : " starting with " + payload[0]));
        }
        return payload[0];
    }

    private Counter counter() {
        return state.root(ROOT, Counter.class);
    }

    private static byte[] encode(long count) {
        return ByteBuffer.allocate(Long.BYTES).putLong(count).array();
    }

    /** Settings of a counter. */
    public static final class Builder {
        private static final int MAX_RACE_WINDOW = 1 << 30;

        private int raceWindow = 20_000;
        private double raceProbability = 1.0;
        private boolean debug;

        private Builder() {}

        /**
         * The minimum number of spin steps between an increment's read and its write; each request adds a
         * random share (local timing noise) of up to as many again. Default 20000 (tens of microseconds).
         */
        public Builder raceWindow(int steps) {
            this.raceWindow = steps;
            return this;
        }

        /**
         * The chance that an increment lingers in its race window at all (local noise, like an unlucky
         * preemption); the others read and write back at once. Lower values make manifestations rarer and
         * less alike across replicas, as real concurrency bugs are. Default 1.
         */
        public Builder raceProbability(double probability) {
            this.raceProbability = probability;
            return this;
        }

        /** Rehash the whole state at every seal (tests). Default off. */
        public Builder debug(boolean debug) {
            this.debug = debug;
            return this;
        }

        public RacyCounter build() {
            if (raceWindow < 0 || raceWindow > MAX_RACE_WINDOW) {
                throw new IllegalArgumentException(
                        "the race window is 0 to " + MAX_RACE_WINDOW + " steps, got " + raceWindow);
            }
            if (!(raceProbability >= 0 && raceProbability <= 1)) {
                throw new IllegalArgumentException("the race probability is in [0, 1], got " + raceProbability);
            }
            ObjectGraphState state = ObjectGraphState.builder()
                    .register(Counter.class)
                    .debug(debug)
                    .build();
            state.setRoot(ROOT, Counter.create());
            return new RacyCounter(state, raceWindow, raceProbability);
        }
    }
}
