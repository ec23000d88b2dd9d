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
 * What the request scope that undoes a failed request (docs/state.md, "A failed request leaves no trace")
 * adds to a request that succeeds: each operation is one request writing one blob, with {@code modify}
 * alone ({@code modifyOutsideRequests}, the cost before the scope existed) or inside
 * {@code beginRequest}/{@code endRequest}, on a blob clean in the batch ({@code modifyInRequests}: the
 * batch's pre-image serves, nothing more is copied) or one an earlier request of the batch wrote
 * ({@code modifyDirtyInRequests}: the request copies its own pre-image).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
public class RequestScopeBenchmark {
    @Param({"64", "1024"})
    int objectSize;

    private BlobState blobs;
    private BlobState dirtyBlobs;

    @Setup(Level.Trial)
    public void buildState() {
        blobs = new BlobState(objectSize, true);
        dirtyBlobs = new BlobState(objectSize, true);
    }

    /** A new batch on version 0; in {@code dirtyBlobs} an earlier request already wrote every blob. */
    @Setup(Level.Invocation)
    public void newBatch() {
        blobs.state.rollbackTo(0);
        dirtyBlobs.state.rollbackTo(0);
        dirtyBlobs.writeBatch();
    }

    @Benchmark
    @OperationsPerInvocation(BlobState.DIRTY)
    public void modifyOutsideRequests() {
        for (Blob blob : blobs.dirty) {
            blobs.state.modify(blob);
        }
    }

    @Benchmark
    @OperationsPerInvocation(BlobState.DIRTY)
    public void modifyInRequests() {
        for (Blob blob : blobs.dirty) {
            blobs.state.beginRequest();
            blobs.state.modify(blob);
            blobs.state.endRequest();
        }
    }

    @Benchmark
    @OperationsPerInvocation(BlobState.DIRTY)
    public void modifyDirtyInRequests() {
        for (Blob blob : dirtyBlobs.dirty) {
            dirtyBlobs.state.beginRequest();
            dirtyBlobs.state.modify(blob);
            dirtyBlobs.state.endRequest();
        }
    }
}
