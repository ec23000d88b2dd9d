package io.eve.bench.pipeline;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;

/**
 * {@link TypedRequestBenchmark}'s two stages in one loop that alternates them round by round and counts
 * the benchmark thread's CPU time, not wall time: on a shared, loaded machine other processes' load
 * swamps the wall-clock difference, while the thread's own CPU time and the alternation keep the
 * comparison fair. Prints the median CPU time per batch of each and the median per-round saving.
 *
 * <pre>java -cp tpcw-bench/target/benchmarks.jar io.eve.bench.pipeline.TypedRequestLoop [rounds] [batches]</pre>
 */
public final class TypedRequestLoop {
    private TypedRequestLoop() {}

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        int batches = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        TypedRequestBenchmark benchmark = new TypedRequestBenchmark();
        benchmark.start();
        try {
            for (int warmup = 0; warmup < 10; warmup++) {
                run(benchmark, true, batches, threads);
                run(benchmark, false, batches, threads);
            }
            double[] once = new double[rounds];
            double[] twice = new double[rounds];
            double[] decode = new double[rounds];
            double[] saving = new double[rounds];
            for (int round = 0; round < rounds; round++) {
                boolean onceFirst = round % 2 == 0;
                double first = run(benchmark, onceFirst, batches, threads);
                double second = run(benchmark, !onceFirst, batches, threads);
                once[round] = onceFirst ? first : second;
                twice[round] = onceFirst ? second : first;
                decode[round] = decodeOnly(benchmark, batches, threads);
                saving[round] = 1 - once[round] / twice[round];
            }
            System.out.printf(
                    Locale.ROOT,
                    "%d rounds of %d batches of %d requests, CPU us per batch (median):%n"
                            + "  decoding once   %8.1f%n  decoding twice  %8.1f%n  decoding alone  %8.1f%n"
                            + "  saving per round (median) %.1f%%, per request %.2f us%n",
                    rounds,
                    batches,
                    TypedRequestBenchmark.BATCH,
                    median(once),
                    median(twice),
                    median(decode),
                    100 * median(saving),
                    (median(twice) - median(once)) / TypedRequestBenchmark.BATCH);
        } finally {
            benchmark.stop();
        }
    }

    /** CPU microseconds per batch of {@code batches} batches run on one of the two stages. */
    private static double run(TypedRequestBenchmark benchmark, boolean once, int batches, ThreadMXBean threads) {
        long start = threads.getCurrentThreadCpuTime();
        for (int i = 0; i < batches; i++) {
            if (once) {
                benchmark.decodingOnce();
            } else {
                benchmark.decodingTwice();
            }
        }
        return (threads.getCurrentThreadCpuTime() - start) / 1000.0 / batches;
    }

    private static double decodeOnly(TypedRequestBenchmark benchmark, int batches, ThreadMXBean threads) {
        long start = threads.getCurrentThreadCpuTime();
        for (int i = 0; i < batches; i++) {
            benchmark.decodeOnly();
        }
        return (threads.getCurrentThreadCpuTime() - start) / 1000.0 / batches;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
