package io.eve.verify.quorum;

/**
 * Settings of the extra protection mode (Eve §6.3, docs/quorum.md "Extra protection mode"), for {@code r = 0}
 * only: after {@code afterBatches} consecutive batches whose {@code nE} tokens all matched in time, a verifier
 * waits up to {@code waitNanos} past the quorum for all {@code nE} tokens before it prepares a batch, and
 * orders a rollback (a view change) when they do not all match.
 *
 * @param enabled whether verifiers may enter the mode at all
 * @param afterBatches the {@code k} of Eve §6.3: consecutive batches with all tokens matching in time
 * @param waitNanos how long past the quorum a verifier waits for the remaining tokens
 * @param warmUpNanos how long after the first token it sees a verifier counts no batch towards the mode (a
 *     deployed JVM compiles for tens of seconds, and its late tokens would each cost a rollback); 0 in the
 *     simulator and in one JVM
 */
public record ExtraProtectionConfig(boolean enabled, int afterBatches, long waitNanos, long warmUpNanos) {
    /** Defaults: after 32 clean batches, wait 10 ms (docs/quorum.md, docs/benchmarks.md), no warm-up. */
    public static final ExtraProtectionConfig DEFAULT = new ExtraProtectionConfig(true, 32, 10_000_000L);

    /** The mode never entered: the normal quorum alone decides. */
    public static final ExtraProtectionConfig OFF = new ExtraProtectionConfig(false, 32, 10_000_000L);

    /** Without a warm-up. */
    public ExtraProtectionConfig(boolean enabled, int afterBatches, long waitNanos) {
        this(enabled, afterBatches, waitNanos, 0);
    }

    public ExtraProtectionConfig {
        if (afterBatches < 1) {
            throw new IllegalArgumentException(
                    "extra protection: afterBatches must be at least 1, got " + afterBatches);
        }
        if (waitNanos <= 0) {
            throw new IllegalArgumentException("extra protection: waitNanos must be positive, got " + waitNanos);
        }
        if (warmUpNanos < 0) {
            throw new IllegalArgumentException("extra protection: warmUpNanos must be 0 or more, got " + warmUpNanos);
        }
    }
}
