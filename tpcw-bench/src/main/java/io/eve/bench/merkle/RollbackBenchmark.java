package io.eve.bench.merkle;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** The cost of rolling a sealed batch of 1024 written blobs back, per object. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
public class RollbackBenchmark {
    @Param({"64", "1024", "10240"})
    int objectSize;

    private BlobState blobs;

    @Setup(Level.Trial)
    public void buildState() {
        blobs = new BlobState(objectSize, true);
    }

    /** One sealed batch of writes waiting to be undone. */
    @Setup(Level.Invocation)
    public void writeAndSeal() {
        blobs.writeBatch();
        blobs.state.seal(1);
    }

    @Benchmark
    @OperationsPerInvocation(BlobState.DIRTY)
    public void rollback() {
        blobs.state.rollbackTo(0);
    }
}
