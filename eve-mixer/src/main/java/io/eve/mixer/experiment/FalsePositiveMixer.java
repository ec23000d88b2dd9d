package io.eve.mixer.experiment;

import io.eve.mixer.BatchKeys;
import io.eve.mixer.ConflictKeys;
import io.eve.mixer.Mixer;
import java.util.ArrayList;
import java.util.List;

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
public final class FalsePositiveMixer extends KeyRewritingMixer {
    private static final long SALT = 0xbb67ae8584caa73bL;

    /** Decorates {@code inner} with false-positive probability {@code rate}, in [0, 1]. */
    public FalsePositiveMixer(Mixer inner, double rate) {
        super(inner, rate, "false-positive");
    }

    /** The batch with a shared pair key added to both requests of every chosen pair. */
    @Override
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
}
