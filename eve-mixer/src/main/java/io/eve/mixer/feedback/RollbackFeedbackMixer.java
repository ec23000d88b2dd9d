package io.eve.mixer.feedback;

import io.eve.mixer.BatchKeys;
import io.eve.mixer.ConflictKeys;
import io.eve.mixer.Mixer;
import io.eve.mixer.ParallelBatch;
import io.eve.mixer.Partition;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Learns from rollbacks (Eve §5.1, last paragraph): after batch {@code n} rolls back, the keys it ran in
 * parallel are suspected of hiding conflicts, and for a while they conflict coarsely.
 *
 * <p>The rule. On {@code onRollback(batch n, partition)}, the <em>suspects</em> are every key read or written
 * by a request that shared a parallel batch with another request (a request alone in its parallel batch
 * cannot have raced). For every batch with seq in {@code [n, n + window]}, a request that reads or writes any
 * suspect also writes one synthetic key for that rollback: all suspects act as a single key, and reading
 * them counts as writing. Such requests therefore run one at a time and in batch order, while requests that
 * touch no suspect mix as before. A second rollback of the same seq adds its suspects to the same key. Rules
 * whose window ends before the seq of a new rollback are forgotten then: batches before a rolled-back one
 * are committed and never mixed again.
 *
 * <p>Determinism: the result depends only on the batch and on the sequence of {@code onRollback} calls, never
 * on time, so the execution stage must call {@code onRollback} at the same point of the agreed history on
 * every replica, with the batch that failed verification and the partition this mixer produced for it,
 * before mixing any batch with a higher seq. A replica that joins later by state transfer has not seen
 * earlier rollbacks; it may mix differently for at most {@code window} batches, which verification tolerates.
 *
 * <p>Thread-safe: the rules are an immutable list swapped on each rollback. Put this decorator outermost, so
 * that it sees the application's keys rather than keys rewritten by an experiment decorator.
 */
public final class RollbackFeedbackMixer implements Mixer {
    private final Mixer inner;
    private final int window;
    private volatile List<CoarseRule> rules = List.of();

    /**
     * Decorates {@code inner}; a rollback of batch {@code n} coarsens batches {@code n} to {@code n + window}.
     */
    public RollbackFeedbackMixer(Mixer inner, int window) {
        this.inner = Objects.requireNonNull(inner, "inner mixer must not be null");
        if (window < 1) {
            throw new IllegalArgumentException("the feedback window is at least 1 batch, got " + window);
        }
        this.window = window;
    }

    @Override
    public List<ParallelBatch> mix(BatchKeys batch) {
        return partition(batch).parallelBatches();
    }

    /** The decorated mixer's partition of the coarsened batch, whose keys order execution too. */
    @Override
    public Partition partition(BatchKeys batch) {
        return inner.partition(coarsen(batch, rules));
    }

    @Override
    public synchronized void onRollback(BatchKeys batch, List<ParallelBatch> partition) {
        Set<Object> suspects = suspects(batch, partition);
        List<CoarseRule> current = rules;
        inner.onRollback(coarsen(batch, current), partition);
        rules = List.copyOf(updated(current, batch.seq(), suspects));
    }

    /** Number of rules kept, for tests of forgetting. */
    int ruleCount() {
        return rules.size();
    }

    private BatchKeys coarsen(BatchKeys batch, List<CoarseRule> all) {
        List<CoarseRule> active = new ArrayList<>();
        for (CoarseRule rule : all) {
            if (rule.activeAt(batch.seq())) {
                active.add(rule);
            }
        }
        if (active.isEmpty()) {
            return batch;
        }
        List<ConflictKeys> coarsened = new ArrayList<>(batch.size());
        for (ConflictKeys keys : batch.requests()) {
            coarsened.add(coarsen(keys, active));
        }
        return batch.withRequests(coarsened);
    }

    private static ConflictKeys coarsen(ConflictKeys keys, List<CoarseRule> active) {
        ConflictKeys result = keys;
        for (CoarseRule rule : active) {
            if (rule.touchedBy(keys)) {
                result = result.andWriting(rule.key());
            }
        }
        return result;
    }

    private List<CoarseRule> updated(List<CoarseRule> current, long seq, Set<Object> suspects) {
        List<CoarseRule> next = new ArrayList<>();
        boolean merged = false;
        for (CoarseRule rule : current) {
            if (rule.fromSeq() == seq) {
                next.add(rule.widenedBy(suspects));
                merged = true;
            } else if (rule.untilSeq() >= seq) {
                next.add(rule);
            }
        }
        if (!merged && !suspects.isEmpty()) {
            long until = seq > Long.MAX_VALUE - window ? Long.MAX_VALUE : seq + window;
            next.add(new CoarseRule(seq, until, suspects));
        }
        return next;
    }

    private static Set<Object> suspects(BatchKeys batch, List<ParallelBatch> partition) {
        Objects.requireNonNull(partition, "partition must not be null");
        Set<Object> suspects = new HashSet<>();
        for (ParallelBatch parallel : partition) {
            Objects.requireNonNull(parallel, "partition must not contain null");
            for (int position : parallel.requests()) {
                if (position >= batch.size()) {
                    throw new IllegalArgumentException("partition names request " + position + " but batch "
                            + batch.seq() + " has " + batch.size() + " requests");
                }
                if (parallel.size() > 1) {
                    suspects.addAll(batch.requests().get(position).reads());
                    suspects.addAll(batch.requests().get(position).writes());
                }
            }
        }
        return suspects;
    }

    @Override
    public String toString() {
        return "RollbackFeedbackMixer(window " + window + ", " + inner + ")";
    }
}
