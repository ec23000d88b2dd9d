package io.eve.bench.merkle;

import io.eve.merkle.Digest;
import io.eve.merkle.codec.HashSink;
import io.eve.merkle.tree.ParallelLoop;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.ForkJoinPool;
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
 * Seal cost per dirty object against raw SHA-256 over the same bytes, in the same run, on the same number
 * of threads (issue 2's benchmark; issue 24 made the baseline match the seal's threads). A state of 4096
 * blobs; each batch writes 1024 of them, chosen at random once. {@code seal} includes placement checks, leaf
 * hashing, the tree and version bookkeeping; {@code sha256Baseline} hashes each dirty blob's payload once,
 * nothing else: on the benchmark thread alone when {@code parallel} is false, and on the benchmark thread
 * plus the common pool, split as the seal splits its leaves, when it is true. Every result is per object.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
public class SealBenchmark {
    @Param({"64", "1024", "10240"})
    int objectSize;

    /** Hash on the sealing thread plus the common pool (the default), or on the sealing thread alone. */
    @Param({"true", "false"})
    boolean parallel;

    private BlobState blobs;
    private MessageDigest sha256;
    private long seq;

    @Setup(Level.Trial)
    public void buildState() throws NoSuchAlgorithmException {
        blobs = new BlobState(objectSize, parallel);
        sha256 = MessageDigest.getInstance("SHA-256");
    }

    /** Executes the batch's writes outside the measured region. */
    @Setup(Level.Invocation)
    public void writeBatch() {
        blobs.state.markStable(seq);
        blobs.writeBatch();
    }

    @Benchmark
    @OperationsPerInvocation(BlobState.DIRTY)
    public Digest seal() {
        return blobs.state.seal(++seq);
    }

    @Benchmark
    @OperationsPerInvocation(BlobState.DIRTY)
    public byte[] sha256Baseline() {
        byte[] out = new byte[BlobState.DIRTY * 32];
        if (!parallel) {
            hashRange(sha256, 0, BlobState.DIRTY, out);
            return out;
        }
        ForkJoinPool pool = ForkJoinPool.commonPool();
        int chunks = Math.min(BlobState.DIRTY, 8 * (pool.getParallelism() + 1));
        ParallelLoop.run(pool, chunks, c -> {
            int from = BlobState.DIRTY * c / chunks;
            int to = BlobState.DIRTY * (c + 1) / chunks;
            hashRange(PER_THREAD.get(), from, to, out);
        });
        return out;
    }

    private static final ThreadLocal<MessageDigest> PER_THREAD = ThreadLocal.withInitial(HashSink::newSha256);

    private void hashRange(MessageDigest digest, int from, int to, byte[] out) {
        try {
            for (int i = from; i < to; i++) {
                digest.update(blobs.dirty[i].payload);
                digest.digest(out, i * 32, 32);
            }
        } catch (DigestException e) {
            throw new IllegalStateException(e);
        }
    }
}
