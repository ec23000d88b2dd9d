package io.eve.bench.suite;

import io.eve.samples.kv.WorkKind;
import java.time.Duration;
import java.util.List;

/**
 * The values a run sweeps over, after a figure's defaults and the command line's overrides are merged.
 * Immutable.
 *
 * @param modes mode ids, in running order
 * @param threads execution thread counts
 * @param workMicros work per request, microseconds
 * @param workKind how the work is spent
 * @param objectSizes bytes per object
 * @param objects numbers of objects
 * @param falseNegativeRates mixer false-negative rates
 * @param falsePositiveRates mixer false-positive rates
 * @param clients closed-loop clients
 * @param maxBatchSize requests per Eve batch at most
 * @param warmup warm-up per point
 * @param duration measured time per point
 */
record Sweep(
        List<String> modes,
        List<Integer> threads,
        List<Long> workMicros,
        WorkKind workKind,
        List<Integer> objectSizes,
        List<Integer> objects,
        List<Double> falseNegativeRates,
        List<Double> falsePositiveRates,
        int clients,
        int maxBatchSize,
        Duration warmup,
        Duration duration) {

    Workload workload(int threads, long work, int size, int objectCount, double fn, double fp) {
        return new Workload(
                threads, work, workKind, size, objectCount, fn, fp, clients, maxBatchSize, warmup, duration);
    }

    int maxThreads() {
        return threads.stream().mapToInt(Integer::intValue).max().orElse(1);
    }
}
