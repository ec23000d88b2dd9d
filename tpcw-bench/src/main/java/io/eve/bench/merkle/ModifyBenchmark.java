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

/**
 * The cost of {@code modify}: saving an object's pre-image on its first write in a batch, per object,
 * against copying the payload alone ({@code cloneBaseline}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
public class ModifyBenchmark {
    @Param({"64", "1024", "10240"})
    int objectSize;

    private BlobState blobs;
    private final byte[][] copies = new byte[BlobState.DIRTY][];

    @Setup(Level.Trial)
    public void buildState() {
        blobs = new BlobState(objectSize, true);
    }

    /** A new batch on version 0, so every modify saves a fresh pre-image. */
    @Setup(Level.Invocation)
    public void newBatch() {
        blobs.state.rollbackTo(0);
    }

    @Benchmark
    @OperationsPerInvocation(BlobState.DIRTY)
    public void modify() {
        for (Blob blob : blobs.dirty) {
            blobs.state.modify(blob);
        }
    }

    @Benchmark
    @OperationsPerInvocation(BlobState.DIRTY)
    public byte[][] cloneBaseline() {
        Blob[] dirty = blobs.dirty;
        for (int i = 0; i < dirty.length; i++) {
            copies[i] = dirty[i].payload.clone();
        }
        return copies;
    }
}
