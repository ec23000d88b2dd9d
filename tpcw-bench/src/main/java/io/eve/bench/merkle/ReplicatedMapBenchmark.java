package io.eve.bench.merkle;

import io.eve.merkle.graph.ObjectGraphState;
import io.eve.merkle.graph.ReplicatedMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The replicated map operations the reply cache makes for every request (docs/benchmarks.md, "One key hash
 * per map operation"): each operation is one request that removes a reply kept under a key {@code
 * "client:seq"} ({@code removePresent}), removes a key that is not there ({@code removeAbsent}), or puts a
 * new one ({@code putNew}), inside {@code beginRequest}/{@code endRequest}, on a map of 4,096 entries
 * sealed as version 0 and rolled back to it before each batch of 1,024 requests.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
public class ReplicatedMapBenchmark {
    static final int ENTRIES = 4096;
    static final int REQUESTS = 1024;
    private static final byte[] REPLY = new byte[9];

    private ObjectGraphState state;
    private ReplicatedMap<String, byte[]> replies;
    private String[] present;
    private String[] absent;

    @Setup(Level.Trial)
    @SuppressWarnings("unchecked")
    public void buildState() {
        state = ObjectGraphState.builder().gcInterval(0).build();
        ReplicatedMap<String, byte[]> map = new ReplicatedMap<>();
        for (int i = 0; i < ENTRIES; i++) {
            map.put(key(i), REPLY);
        }
        state.setRoot("replies", map);
        state.seal(0);
        replies = state.root("replies", ReplicatedMap.class);
        present = new String[REQUESTS];
        absent = new String[REQUESTS];
        for (int i = 0; i < REQUESTS; i++) {
            present[i] = key(i * (ENTRIES / REQUESTS));
            absent[i] = key(ENTRIES + i);
        }
    }

    private static String key(int i) {
        return (1_000 + i % 64) + ":" + (i / 64 + 1);
    }

    @Setup(Level.Invocation)
    public void newBatch() {
        state.rollbackTo(0);
    }

    @Benchmark
    @OperationsPerInvocation(REQUESTS)
    public int removePresent() {
        return removeEach(present);
    }

    @Benchmark
    @OperationsPerInvocation(REQUESTS)
    public int removeAbsent() {
        return removeEach(absent);
    }

    /** One request per key, each removing its key; returns how many were there. */
    private int removeEach(String[] keys) {
        int removed = 0;
        for (String key : keys) {
            state.beginRequest();
            removed += replies.remove(key) == null ? 0 : 1;
            state.endRequest();
        }
        return removed;
    }

    @Benchmark
    @OperationsPerInvocation(REQUESTS)
    public int putNew() {
        int replaced = 0;
        for (String key : absent) {
            state.beginRequest();
            replaced += replies.put(key, REPLY) == null ? 0 : 1;
            state.endRequest();
        }
        return replaced;
    }
}
