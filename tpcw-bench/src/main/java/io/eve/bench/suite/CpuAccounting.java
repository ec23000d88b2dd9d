package io.eve.bench.suite;

/**
 * The arithmetic of CPU efficiency: CPU time per committed request summed over all replicas, and its
 * ratio to what the same requests would cost if each execution replica spent exactly what the
 * unreplicated server spends ({@code replicas x unreplicated per request}). A ratio of 1 means
 * replication costs nothing beyond executing every request on every replica. Pure functions.
 */
final class CpuAccounting {
    private CpuAccounting() {}

    /** Microseconds of CPU per committed request; NaN when nothing was committed. */
    static double microsPerRequest(long cpuNanos, long requests) {
        return requests <= 0 ? Double.NaN : cpuNanos / 1_000.0 / requests;
    }

    /**
     * {@code perRequest / (replicas x baselinePerRequest)}; NaN when either figure is missing or the
     * baseline is not positive.
     */
    static double ratio(double perRequest, int replicas, double baselinePerRequest) {
        if (replicas < 1) {
            throw new IllegalArgumentException("a mode has at least 1 execution replica, got " + replicas);
        }
        if (Double.isNaN(perRequest) || Double.isNaN(baselinePerRequest) || baselinePerRequest <= 0) {
            return Double.NaN;
        }
        return perRequest / (replicas * baselinePerRequest);
    }
}
