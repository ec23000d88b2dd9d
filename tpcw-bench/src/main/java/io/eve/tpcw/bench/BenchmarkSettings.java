package io.eve.tpcw.bench;

import io.eve.tpcw.driver.Mix;
import io.eve.tpcw.schema.Scale;
import java.util.List;

/**
 * Immutable settings of one benchmark run (see {@code TpcwBenchmark --help}).
 *
 * @param mix the workload mix
 * @param scale the database size
 * @param browsers emulated browsers driving the load (closed loop)
 * @param threads execution thread counts to measure
 * @param warmupSeconds seconds of load before each measured window
 * @param seconds length of each measured window
 * @param thinkMillis mean think time of a browser (0: throughput run, as Eve did)
 * @param seed seed of the data and of the browsers' choices
 * @param cartPartitions ways the mixer splits the cart tables
 * @param maxBatch most requests in one Eve batch
 */
public record BenchmarkSettings(
        Mix mix,
        Scale scale,
        int browsers,
        List<Integer> threads,
        double warmupSeconds,
        double seconds,
        long thinkMillis,
        long seed,
        int cartPartitions,
        int maxBatch) {
    public BenchmarkSettings {
        threads = List.copyOf(threads);
        if (threads.isEmpty() || threads.stream().anyMatch(t -> t < 1)) {
            throw new IllegalArgumentException("thread counts must be positive, got " + threads);
        }
        if (browsers < 1 || browsers > 100_000) {
            throw new IllegalArgumentException("browsers must be in 1..100000, got " + browsers);
        }
        if (seconds <= 0 || warmupSeconds < 0) {
            throw new IllegalArgumentException(
                    "seconds must be positive and warm-up not negative, got " + seconds + " and " + warmupSeconds);
        }
        if (thinkMillis < 0 || cartPartitions < 1 || maxBatch < 1) {
            throw new IllegalArgumentException("think time, cart partitions and batch size: got " + thinkMillis + ", "
                    + cartPartitions + ", " + maxBatch);
        }
    }
}
