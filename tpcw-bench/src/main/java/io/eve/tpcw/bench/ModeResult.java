package io.eve.tpcw.bench;

import java.util.Map;

/**
 * What one mode at one thread count measured.
 *
 * @param mode "sequential", "unreplicated", "eve" (primary-backup) or "eve-crash" (the crash profile)
 * @param threads execution threads (per replica for Eve)
 * @param throughput committed interactions per second in the measured window
 * @param p50Millis median latency of an interaction as the emulated browser saw it
 * @param p99Millis 99th percentile latency
 * @param cpuMicrosPerRequest process CPU time in the window (driver, and both replicas for Eve) per
 *     committed interaction
 * @param rollbacks Eve rollbacks in the window, both replicas
 * @param meanParallelBatch mean requests per parallel batch in the window (Eve only, else 0)
 * @param meanBatch mean requests per batch in the window (Eve only, else 0)
 * @param acknowledged interactions the browsers got a reply for, over the whole run
 * @param errors error replies among them
 * @param committed interactions the system reports as committed over the whole run
 * @param roots the replicas' root comparison
 * @param invariants violated invariants; empty if all hold
 * @param realisedMix interactions sent per interaction title, whole run
 */
public record ModeResult(
        String mode,
        int threads,
        double throughput,
        double p50Millis,
        double p99Millis,
        double cpuMicrosPerRequest,
        long rollbacks,
        double meanParallelBatch,
        double meanBatch,
        long acknowledged,
        long errors,
        long committed,
        Target.RootCheck roots,
        java.util.List<String> invariants,
        Map<String, Long> realisedMix) {
    public ModeResult {
        invariants = java.util.List.copyOf(invariants);
        realisedMix = Map.copyOf(realisedMix);
    }

    /** Roots agree, invariants hold, nothing failed, and every acknowledged interaction was committed. */
    public boolean healthy() {
        return roots.agreed() && invariants.isEmpty() && errors == 0 && acknowledged == committed;
    }
}
