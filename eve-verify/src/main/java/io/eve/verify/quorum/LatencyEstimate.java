package io.eve.verify.quorum;

/**
 * A moving estimate of a delay the protocol observes (how long agreement takes to make progress, how late the
 * last execution replica's token comes), from which a timeout is derived the way TCP derives its retransmission
 * timeout (RFC 6298): a smoothed mean and a smoothed mean deviation, the timeout being the mean plus four
 * deviations, never below the configured floor and never above the ceiling (docs/quorum.md, "Adaptive
 * timeouts"; decision 0028).
 *
 * <p>On top of the estimate, a back-off: {@link #backOff()} doubles the timeout (a view change that turned out
 * unnecessary: the estimate was too short), up to {@code maxDoublings}, and {@link #onProgress()} undoes one
 * doubling per {@code decayEvents} progress events without another back-off, so the timeout decays back slowly.
 * A timeout never exceeds the ceiling, which bounds how long a failed process goes unnoticed.
 *
 * <p>Deterministic (no clock, no randomness inside): samples and events come in as arguments. Not thread-safe.
 */
final class LatencyEstimate {
    private final long floorNanos;
    private final long ceilingNanos;
    private final int maxDoublings;
    private final int decayEvents;

    private boolean sampled;
    private long smoothed;
    private long deviation;
    private int doublings;
    private int sinceBackOff;

    /**
     * @param floorNanos the configured value: the timeout is never shorter
     * @param ceilingNanos the timeout is never longer (at least the floor)
     * @param maxDoublings how often {@link #backOff()} may double the timeout
     * @param decayEvents progress events without a back-off after which one doubling is undone
     */
    LatencyEstimate(long floorNanos, long ceilingNanos, int maxDoublings, int decayEvents) {
        if (floorNanos <= 0 || ceilingNanos < floorNanos) {
            throw new IllegalArgumentException("a latency estimate needs 0 < floor <= ceiling, got floor " + floorNanos
                    + " ns and ceiling " + ceilingNanos + " ns");
        }
        if (maxDoublings < 0 || decayEvents < 1) {
            throw new IllegalArgumentException("a latency estimate needs maxDoublings >= 0 and decayEvents >= 1, got "
                    + maxDoublings + " and " + decayEvents);
        }
        this.floorNanos = floorNanos;
        this.ceilingNanos = ceilingNanos;
        this.maxDoublings = maxDoublings;
        this.decayEvents = decayEvents;
    }

    /** One observed delay (negative ones count as zero). RFC 6298 gains: 1/8 for the mean, 1/4 for the deviation. */
    void sample(long nanos) {
        long value = Math.max(0, nanos);
        if (!sampled) {
            sampled = true;
            smoothed = value;
            deviation = value / 2;
            return;
        }
        deviation += (Math.abs(smoothed - value) - deviation) / 4;
        smoothed += (value - smoothed) / 8;
    }

    /** Mean plus four deviations of the samples so far; 0 before the first. */
    long estimateNanos() {
        return sampled ? smoothed + 4 * deviation : 0;
    }

    /** The timeout: the estimate or the floor, whichever is longer, doubled per back-off, at most the ceiling. */
    long timeoutNanos() {
        long base = Math.max(floorNanos, estimateNanos());
        if (base >= ceilingNanos >> doublings) {
            return ceilingNanos;
        }
        return base << doublings;
    }

    long floorNanos() {
        return floorNanos;
    }

    long ceilingNanos() {
        return ceilingNanos;
    }

    /** The timeout turned out too short: double it (up to {@code maxDoublings} times). */
    void backOff() {
        doublings = Math.min(maxDoublings, doublings + 1);
        sinceBackOff = 0;
    }

    /** Progress without a back-off: every {@code decayEvents} of them undo one doubling. */
    void onProgress() {
        if (doublings > 0 && ++sinceBackOff >= decayEvents) {
            doublings--;
            sinceBackOff = 0;
        }
    }

    int doublings() {
        return doublings;
    }
}
