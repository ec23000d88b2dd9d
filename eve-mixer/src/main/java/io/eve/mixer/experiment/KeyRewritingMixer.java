package io.eve.mixer.experiment;

import io.eve.mixer.BatchKeys;
import io.eve.mixer.Mixer;
import io.eve.mixer.ParallelBatch;
import io.eve.mixer.Partition;
import java.util.List;
import java.util.Objects;

/**
 * A decorator that changes a batch's conflict keys, deterministically from the batch seed, before the
 * decorated mixer sees them, and shows the decorated mixer the same rewritten batch on rollback. Its
 * {@link #partition} carries the keys the decorated mixer used, so the mistakes reach the execution order
 * and not only the split. The rate is a probability in [0, 1]. Thread-safe if the decorated mixer is.
 */
abstract class KeyRewritingMixer implements Mixer {
    final Mixer inner;
    final double rate;

    KeyRewritingMixer(Mixer inner, double rate, String rateName) {
        this.inner = Objects.requireNonNull(inner, "inner mixer must not be null");
        if (!(rate >= 0.0 && rate <= 1.0)) {
            throw new IllegalArgumentException("a " + rateName + " rate is a probability in [0, 1], got " + rate);
        }
        this.rate = rate;
    }

    /** The batch as the decorated mixer is to see it. */
    abstract BatchKeys rewrite(BatchKeys batch);

    @Override
    public final List<ParallelBatch> mix(BatchKeys batch) {
        return partition(batch).parallelBatches();
    }

    @Override
    public final Partition partition(BatchKeys batch) {
        return inner.partition(rewrite(batch));
    }

    /** Forwards to the decorated mixer the batch as it saw it. */
    @Override
    public final void onRollback(BatchKeys batch, List<ParallelBatch> partition) {
        inner.onRollback(rewrite(batch), partition);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "(" + rate + ", " + inner + ")";
    }
}
