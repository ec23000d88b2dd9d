package io.eve.verify.quorum;

/**
 * The largest delay observed lately: the maximum of the samples, each worth half as much per {@code halfLife}
 * of age (docs/quorum.md, "Extra protection mode", rule 1). A mean and deviation (RFC 6298, {@link
 * LatencyEstimate}) describe the bulk of a distribution and forget a rare long delay within a few dozen
 * samples; a wait built on them alone expires on the next one. On a shared disk or a loaded machine the rare
 * delays (a force that stalls behind a checkpoint, a collector pause) come back every few seconds at about the
 * same length, so the largest seen recently predicts the next better than the mean does.
 *
 * <p>Deterministic: time comes in as an argument (nanoseconds, from the caller's clock). Not thread-safe.
 */
final class DecayingMaximum {
    private final long halfLifeNanos;
    private long value;
    private long at;

    /** @param halfLifeNanos how long until a sample counts half its delay (above 0) */
    DecayingMaximum(long halfLifeNanos) {
        if (halfLifeNanos <= 0) {
            throw new IllegalArgumentException(
                    "a decaying maximum needs a half-life above 0, got " + halfLifeNanos + " ns");
        }
        this.halfLifeNanos = halfLifeNanos;
    }

    /** One observed delay at time {@code now}; negative ones count as zero. */
    void sample(long nanos, long now) {
        if (nanos > valueAt(now)) {
            value = nanos;
            at = now;
        }
    }

    /** The largest sample, each decayed by its age at {@code now}; 0 before the first. */
    long valueAt(long now) {
        if (value == 0) {
            return 0;
        }
        long age = Math.max(0, now - at);
        return (long) (value * Math.pow(0.5, (double) age / halfLifeNanos));
    }
}
