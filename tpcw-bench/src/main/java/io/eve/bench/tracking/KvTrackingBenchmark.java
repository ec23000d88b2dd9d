package io.eve.bench.tracking;

import io.eve.Application;
import io.eve.ExecutionContext;
import io.eve.Request;
import io.eve.batch.Batch;
import io.eve.bench.tracking.manual.PlainKvObject;
import io.eve.execution.Executed;
import io.eve.execution.ExecutionStage;
import io.eve.merkle.VersionedState;
import io.eve.merkle.graph.ObjectGraphState;
import io.eve.merkle.graph.ReplicatedMap;
import io.eve.mixer.ConflictKeys;
import io.eve.mixer.conflict.KeyConflictMixer;
import java.nio.ByteBuffer;
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
 * Key-value updates through an execution stage (mixer, parallel execution on 4 executor threads, seal
 * with hashing, stable marks), with the objects' writes tracked by the build step against the same
 * application marking them with explicit {@code modify} calls, in one run. Each batch updates 256 random
 * objects of 10,000. No network: the figure is the stage's throughput, where tracking could cost.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class KvTrackingBenchmark {
    static final int OBJECTS = 10_000;
    static final int BATCH = 256;

    /** The application: "update object i to a value"; {@code tracked} picks the object class. */
    static final class Kv implements Application {
        private final ObjectGraphState state;
        private final boolean tracked;

        Kv(boolean tracked) {
            this.tracked = tracked;
            this.state = tracked
                    ? ObjectGraphState.builder()
                            .gcInterval(0)
                            .register(TrackedKvObject.class)
                            .build()
                    : ObjectGraphState.builder()
                            .gcInterval(0)
                            .manualTracking(true)
                            .register(PlainKvObject.class)
                            .build();
            ReplicatedMap<Long, Object> objects = new ReplicatedMap<>();
            for (long i = 0; i < OBJECTS; i++) {
                objects.put(i, tracked ? new TrackedKvObject("v" + i) : new PlainKvObject("v" + i));
            }
            state.setRoot("objects", objects);
        }

        @Override
        public VersionedState state() {
            return state;
        }

        @Override
        public ConflictKeys conflictKeys(byte[] payload) {
            return ConflictKeys.writing(ByteBuffer.wrap(payload).getLong());
        }

        @Override
        @SuppressWarnings("unchecked")
        public byte[] execute(byte[] payload, ExecutionContext context) {
            ByteBuffer request = ByteBuffer.wrap(payload);
            long id = request.getLong();
            String value = "value-" + request.getLong();
            Object object = state.root("objects", ReplicatedMap.class).get(id);
            long version =
                    tracked ? ((TrackedKvObject) object).update(value) : ((PlainKvObject) object).update(state, value);
            return ByteBuffer.allocate(Long.BYTES).putLong(version).array();
        }
    }

    private final ExecutorService executor = Executors.newFixedThreadPool(4);
    private final SplittableRandom random = new SplittableRandom(42);
    private ExecutionStage trackedStage;
    private ExecutionStage explicitStage;
    private long trackedSeq;
    private long explicitSeq;

    @Setup(Level.Iteration)
    public void start() {
        trackedStage = new ExecutionStage(new Kv(true), KeyConflictMixer.unbounded(), executor);
        explicitStage = new ExecutionStage(new Kv(false), KeyConflictMixer.unbounded(), executor);
        trackedSeq = 0;
        explicitSeq = 0;
    }

    @TearDown
    public void stop() {
        executor.shutdownNow();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public Executed tracked() {
        Executed executed = trackedStage.execute(batch(++trackedSeq), false);
        trackedStage.markStable(trackedSeq);
        return executed;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public Executed explicitModify() {
        Executed executed = explicitStage.execute(batch(++explicitSeq), false);
        explicitStage.markStable(explicitSeq);
        return executed;
    }

    /** Batch {@code seq}: {@link #BATCH} clients each update a random object. */
    private Batch batch(long seq) {
        List<Request> requests = new ArrayList<>(BATCH);
        for (int i = 0; i < BATCH; i++) {
            byte[] payload = ByteBuffer.allocate(16)
                    .putLong(random.nextInt(OBJECTS))
                    .putLong(random.nextLong())
                    .array();
            requests.add(new Request(i, seq, payload));
        }
        return new Batch(seq, seq, seq, requests);
    }
}
