package io.eve.bench.merkle;

import io.eve.merkle.codec.HashSink;
import io.eve.merkle.tree.ParallelLoop;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.security.DigestException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;

/**
 * {@link SealBenchmark}'s comparison in CPU time instead of elapsed time, for a machine shared with other
 * work: elapsed time counts the moments the scheduler gave the core to someone else, CPU time does not.
 * Each round writes a batch (not measured), seals it, then hashes the same dirty payloads with raw SHA-256,
 * on the same threads as the seal: the benchmark thread alone ({@code 1 thread}), or the benchmark thread
 * and the common pool ({@code 2 threads} on two cores), with the CPU time of every thread involved summed.
 * Prints, per object, the median over the rounds and the quartiles, and the ratio of the medians.
 *
 * <p>{@code java -cp benchmarks.jar io.eve.bench.merkle.SealCpuTime [rounds] [sizes...]}
 */
public final class SealCpuTime {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(HashSink::newSha256);

    private SealCpuTime() {}

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 300;
        int[] sizes = args.length > 1
                ? Arrays.stream(args, 1, args.length)
                        .mapToInt(Integer::parseInt)
                        .toArray()
                : new int[] {1024, 10240};
        System.out.printf(
                "size     threads  seal ns/obj (p25-p75)        sha256 ns/obj (p25-p75)      throughput vs sha256%n");
        for (int size : sizes) {
            for (boolean parallel : new boolean[] {false, true}) {
                run(size, parallel, rounds);
            }
        }
    }

    private static void run(int size, boolean parallel, int rounds) {
        BlobState blobs = new BlobState(size, parallel);
        byte[] out = new byte[BlobState.DIRTY * 32];
        int warmup = Math.max(50, rounds / 2);
        long[] seal = new long[rounds];
        long[] sha = new long[rounds];
        long seq = 0;
        for (int round = -warmup; round < rounds; round++) {
            blobs.state.markStable(seq);
            blobs.writeBatch();
            // Listing the pool's threads stops the JVM: done before, not between, the measured readings.
            long[] workers = parallel ? poolWorkers() : new long[0];
            long before = cpuNanos(workers);
            blobs.state.seal(++seq);
            long sealed = cpuNanos(workers);
            hashDirty(blobs, parallel, out);
            long hashed = cpuNanos(workers);
            if (round >= 0) {
                seal[round] = sealed - before;
                sha[round] = hashed - sealed;
            }
        }
        Arrays.sort(seal);
        Arrays.sort(sha);
        System.out.printf(
                Locale.ROOT,
                "%-8d %-8s %8.0f (%6.0f-%6.0f)        %8.0f (%6.0f-%6.0f)        %.2f%n",
                size,
                parallel ? "2" : "1",
                perObject(seal, 2),
                perObject(seal, 1),
                perObject(seal, 3),
                perObject(sha, 2),
                perObject(sha, 1),
                perObject(sha, 3),
                (double) sha[rounds / 2] / seal[rounds / 2]);
    }

    /** The quartile {@code q} (1 to 3) of sorted round times, per dirty object. */
    private static double perObject(long[] sorted, int q) {
        return (double) sorted[Math.min(sorted.length - 1, sorted.length * q / 4)] / BlobState.DIRTY;
    }

    /** Raw SHA-256 of each dirty payload, split over the same threads as the seal's leaves. */
    private static void hashDirty(BlobState blobs, boolean parallel, byte[] out) {
        if (!parallel) {
            hashRange(blobs, 0, BlobState.DIRTY, out);
            return;
        }
        ForkJoinPool pool = ForkJoinPool.commonPool();
        int chunks = Math.min(BlobState.DIRTY, 8 * (pool.getParallelism() + 1));
        ParallelLoop.run(pool, chunks, c -> {
            hashRange(blobs, BlobState.DIRTY * c / chunks, BlobState.DIRTY * (c + 1) / chunks, out);
        });
    }

    private static void hashRange(BlobState blobs, int from, int to, byte[] out) {
        MessageDigest digest = SHA256.get();
        try {
            for (int i = from; i < to; i++) {
                digest.update(blobs.dirty[i].payload);
                digest.digest(out, i * 32, 32);
            }
        } catch (DigestException e) {
            throw new IllegalStateException(e);
        }
    }

    /** CPU time of this thread plus that of the given pool workers. */
    private static long cpuNanos(long[] workers) {
        long total = THREADS.getCurrentThreadCpuTime();
        for (long id : workers) {
            total += Math.max(0, THREADS.getThreadCpuTime(id));
        }
        return total;
    }

    private static long[] poolWorkers() {
        List<Long> ids = new ArrayList<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread instanceof ForkJoinWorkerThread worker && worker.getPool() == ForkJoinPool.commonPool()) {
                ids.add(thread.getId());
            }
        }
        return ids.stream().mapToLong(Long::longValue).toArray();
    }
}
