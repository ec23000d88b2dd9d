package io.eve.bench.tracking;

import io.eve.bench.tracking.manual.PlainCounter;
import io.eve.merkle.graph.ObjectGraphState;
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
 * A tracked field write against {@code modify} plus the write, on objects already marked by the open
 * request (the path every write after an object's first in a request takes), and the bare write as a
 * floor. Each iteration is one request of one batch; its first write to each object saves a pre-image
 * in both variants alike.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1)
public class TrackedWriteBenchmark {
    static final int OBJECTS = 64;

    private final TrackedCounter[] tracked = new TrackedCounter[OBJECTS];
    private final PlainCounter[] plain = new PlainCounter[OBJECTS];
    private ObjectGraphState trackedState;
    private ObjectGraphState manualState;

    @Setup(Level.Trial)
    public void buildStates() {
        trackedState = ObjectGraphState.builder().register(TrackedCounter.class).build();
        manualState = ObjectGraphState.builder()
                .manualTracking(true)
                .register(PlainCounter.class)
                .build();
        for (int i = 0; i < OBJECTS; i++) {
            tracked[i] = TrackedCounter.create();
            plain[i] = PlainCounter.create();
            trackedState.setRoot("c" + i, tracked[i]);
            manualState.setRoot("c" + i, plain[i]);
        }
        trackedState.seal(0);
        manualState.seal(0);
    }

    /**
     * One request of batch 1 per iteration, on this benchmark thread (the request scope belongs to the
     * thread, so one scope serves both states).
     */
    @Setup(Level.Iteration)
    public void openRequest() {
        trackedState.rollbackTo(0); // a fresh batch: the first write of the iteration saves a pre-image again
        manualState.rollbackTo(0);
        trackedState.beginRequest();
    }

    @TearDown(Level.Iteration)
    public void closeRequest() {
        trackedState.endRequest();
    }

    @Benchmark
    @OperationsPerInvocation(OBJECTS)
    public void trackedWrite() {
        for (TrackedCounter counter : tracked) {
            counter.value++;
        }
    }

    @Benchmark
    @OperationsPerInvocation(OBJECTS)
    public void modifyThenWrite() {
        for (PlainCounter counter : plain) {
            PlainCounter.modifyAndIncrement(manualState, counter);
        }
    }

    @Benchmark
    @OperationsPerInvocation(OBJECTS)
    public void untrackedWrite() {
        for (PlainCounter counter : plain) {
            PlainCounter.increment(counter);
        }
    }
}
