package io.eve.verify.quorum;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * What a quorum process refused from its peers to keep its memory bounded (docs/quorum.md, "Bounded memory"),
 * by reason. Counted on the protocol thread, read from any (the metrics endpoint): thread-safe.
 */
public final class Refusals {
    /** Why a message was refused. */
    public enum Reason {
        /** A {@code Verify}, {@code Prepare} or {@code CommitVote} for a batch beyond the batch window. */
        FUTURE_BATCH,
        /** A {@code ViewChange} for a view beyond the view window. */
        FUTURE_VIEW,
        /** A message a durable verifier had to hold while the held queue was full: dropped. */
        HELD_FULL,
        /** An agreement vote an execution replica forgot because its sender had the window's worth pending. */
        VOTE_EVICTED,
        /** A {@code ExecuteBatch} for a batch beyond the batch window. */
        FUTURE_EXECUTE
    }

    private final long[] counts = new long[Reason.values().length];

    synchronized void add(Reason reason) {
        counts[reason.ordinal()]++;
    }

    /** Messages refused for {@code reason} so far. */
    public synchronized long count(Reason reason) {
        return counts[reason.ordinal()];
    }

    /**
     * Publishes the counts as {@code eve.quorum.refused} with tags {@code node} and {@code reason} (the reason
     * in lower case with dashes, e.g. {@code future-batch}).
     */
    public void register(MeterRegistry registry, int node) {
        for (Reason reason : Reason.values()) {
            FunctionCounter.builder("eve.quorum.refused", this, r -> r.count(reason))
                    .description("messages a quorum process refused: beyond its batch or view window, held"
                            + " messages past the limit, votes evicted")
                    .tag("node", Integer.toString(node))
                    .tag("reason", reason.name().toLowerCase(Locale.ROOT).replace('_', '-'))
                    .register(registry);
        }
    }

    @Override
    public String toString() {
        Map<Reason, Long> all = new EnumMap<>(Reason.class);
        for (Reason reason : Reason.values()) {
            all.put(reason, count(reason));
        }
        return "Refusals" + all;
    }
}
