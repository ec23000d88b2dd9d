package io.eve.mixer;

import java.util.List;

/**
 * Splits one batch into the ordered parallel batches an execution replica runs (Eve §4, §5.1).
 *
 * <p>A parallel batch is a barrier: all its requests finish before the next one starts. The result must be
 * a pure function of the {@link BatchKeys} and of any feedback received through {@link #onRollback}, so that
 * every replica computes the same partition: an implementation must not depend on hash iteration order,
 * identity hash codes, threads or the wall clock. Every request index of the batch appears in exactly one
 * parallel batch, and indices inside one parallel batch are ascending.
 *
 * <p>The execution stage calls both methods from its own thread. Stateless implementations are thread-safe.
 */
public interface Mixer {
    /** The parallel batches for {@code batch}, in execution order; empty for an empty batch. */
    List<ParallelBatch> mix(BatchKeys batch);

    /**
     * The parallel batches for {@code batch} together with the conflict keys they were computed from, which
     * are the keys execution orders requests of different parallel batches by. The default gives
     * {@link #mix}'s answer and the batch's own keys; a decorator that rewrites keys returns the rewritten ones.
     */
    default Partition partition(BatchKeys batch) {
        return new Partition(mix(batch), batch);
    }

    /**
     * Tells the mixer that {@code batch}, which it split into {@code partition}, diverged and was rolled back
     * (Eve §5.1: the mixer "can be improved over time using feedback from the system"). The execution stage
     * calls it at the same point of the agreed history on every replica, before mixing any later batch. The
     * default ignores it.
     */
    default void onRollback(BatchKeys batch, List<ParallelBatch> partition) {}
}
