package io.eve.verify.quorum;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

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

    private final Map<Reason, LongAdder> counts = new EnumMap<>(Reason.class);

    public Refusals() {
        for (Reason reason : Reason.values()) {
            counts.put(reason, new LongAdder());
        }
    }

    void add(Reason reason) {
        counts.get(reason).increment();
    }

    /** Messages refused for {@code reason} so far. */
    public long count(Reason reason) {
        return counts.get(reason).sum();
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
        return "Refusals" + counts;
    }
}
