package io.eve.bench.tracking;

import io.eve.Request;
import io.eve.batch.Batch;
import io.eve.bench.tracking.manual.ExplicitKvStore;
import io.eve.execution.Executed;
import io.eve.execution.ExecutionStage;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.samples.kv.KeyValueStore;
import io.eve.samples.kv.KvRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The key-value sample itself ({@link KeyValueStore}: tracked writes, objects in a replicated map,
 * contents as {@code ImmutableBytes}) against the same store written the way the sample was before
 * ({@link ExplicitKvStore}: a raw array, {@code byte[]} contents, manual tracking, {@code modify}), in one
 * run, through an execution stage (mixer, 4 executor threads, seal with hashing, stable marks). Each batch
 * is 256 SEEDED_UPDATEs of random objects among 10,000 of 1 KB, in the sample's wire format, with no
 * per-request work, so the state's cost is all there is to see.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class KvSampleTrackingBenchmark {
    static final int OBJECTS = 10_000;
    static final int OBJECT_SIZE = 1_024;
    static final int BATCH = 256;

    private final ExecutorService executor = Executors.newFixedThreadPool(4);
    private final SplittableRandom random = new SplittableRandom(42);
    private ExecutionStage trackedStage;
    private ExecutionStage explicitStage;
    private long trackedSeq;
    private long explicitSeq;

    @Setup(Level.Iteration)
    public void start() {
        KeyValueStore tracked = KeyValueStore.builder()
                .objects(OBJECTS)
                .objectSize(OBJECT_SIZE)
                .workMicros(0)
                .build();
        trackedStage = new ExecutionStage(tracked, KeyConflictMixer.unbounded(), executor);
        explicitStage =
                new ExecutionStage(new ExplicitKvStore(OBJECTS, OBJECT_SIZE), KeyConflictMixer.unbounded(), executor);
        trackedSeq = 0;
        explicitSeq = 0;
    }

    @TearDown
    public void stop() {
        executor.shutdownNow();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public Executed trackedSample() {
        Executed executed = trackedStage.execute(batch(++trackedSeq), false);
        trackedStage.markStable(trackedSeq);
        return executed;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public Executed explicitMarks() {
        Executed executed = explicitStage.execute(batch(++explicitSeq), false);
        explicitStage.markStable(explicitSeq);
        return executed;
    }

    /** Batch {@code seq}: {@link #BATCH} clients each send a SEEDED_UPDATE of a random object. */
    private Batch batch(long seq) {
        List<Request> requests = new ArrayList<>(BATCH);
        for (int i = 0; i < BATCH; i++) {
            byte[] payload = KvRequest.encode(new KvRequest.SeededUpdate(random.nextInt(OBJECTS), random.nextLong()));
            requests.add(new Request(i, seq, payload));
        }
        return new Batch(seq, seq, seq, requests);
    }
}
