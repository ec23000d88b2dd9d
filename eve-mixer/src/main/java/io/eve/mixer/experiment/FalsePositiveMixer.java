package io.eve.mixer.experiment;

import io.eve.mixer.BatchKeys;
import io.eve.mixer.ConflictKeys;
import io.eve.mixer.Mixer;
import io.eve.mixer.ParallelBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Makes a mixer see conflicts that are not there: each pair of requests in a batch that does not conflict
 * under its keys is, with probability {@code rate} and independently of every other pair, treated as
 * conflicting. This is the false-positive rate of Eve §7.2 (Fig. 7), defined like its false negatives.
 *
 * <p>How: every pair of requests is chosen with probability {@code rate}, and both requests of a chosen pair
 * get one extra synthetic key that they both write. A chosen pair that already conflicted is unchanged, so
 * among non-conflicting pairs exactly the rate turns into conflicts. The choice depends only on the batch seed
 * and the two positions; the work is the batch size plus the pairs chosen. Rate 0 leaves the keys as they are.
 *
 * <p>Deterministic per batch seed. Thread-safe if the decorated mixer is.
 */
public final class FalsePositiveMixer implements Mixer {
    private static final long SALT = 0xbb67ae8584caa73bL;

    private final Mixer inner;
    private final double rate;

    /** Decorates {@code inner} with false-positive probability {@code rate}, in [0, 1]. */
    public FalsePositiveMixer(Mixer inner, double rate) {
        this.inner = Objects.requireNonNull(inner, "inner mixer must not be null");
        if (!(rate >= 0.0 && rate <= 1.0)) {
            throw new IllegalArgumentException("a false-positive rate is a probability in [0, 1], got " + rate);
        }
        this.rate = rate;
    }

    @Override
    public List<ParallelBatch> mix(BatchKeys batch) {
        return inner.mix(rewrite(batch));
    }

    /** Forwards to the decorated mixer the batch as it saw it. */
    @Override
    public void onRollback(BatchKeys batch, List<ParallelBatch> partition) {
        inner.onRollback(rewrite(batch), partition);
    }

    /** The batch with a shared pair key added to both requests of every chosen pair. */
    BatchKeys rewrite(BatchKeys batch) {
        List<List<Object>> added = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            added.add(new ArrayList<>());
        }
        PairSampler sampler = new PairSampler(new SeededUniforms(batch.seed(), SALT), rate);
        sampler.forEachChosen(batch.size(), (first, second) -> {
            PairKey key = new PairKey(first, second);
            added.get(first).add(key);
            added.get(second).add(key);
        });
        List<ConflictKeys> rewritten = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            ConflictKeys keys = batch.requests().get(i);
            rewritten.add(
                    added.get(i).isEmpty() ? keys : keys.andWriting(added.get(i).toArray()));
        }
        return batch.withRequests(rewritten);
    }

    @Override
    public String toString() {
        return "FalsePositiveMixer(" + rate + ", " + inner + ")";
    }
}
