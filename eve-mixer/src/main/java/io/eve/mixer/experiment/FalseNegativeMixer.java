package io.eve.mixer.experiment;

import io.eve.mixer.BatchKeys;
import io.eve.mixer.ConflictKeys;
import io.eve.mixer.Mixer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Makes a mixer miss conflicts: each pair of requests in a batch that conflicts under its keys is, with
 * probability {@code rate} and independently of every other pair, treated as not conflicting. This is the
 * false-negative rate of Eve §7.2 ("a 1% false negative rate means that each pair of conflicting requests has
 * a 1% chance of being classified as non-conflicting", Fig. 6) and of the FN columns of Fig. 9.
 *
 * <p>How: the keys of the batch are replaced by one synthetic key per pair that still conflicts, written by
 * both requests of the pair, so the decorated mixer sees exactly the thinned conflict relation. The coin for
 * a pair depends only on the batch seed and the two positions. Rate 0 keeps every conflict (the decorated
 * mixer's partition is unchanged); rate 1 removes them all. The rewrite costs, per key, its writers times its
 * users, which is fine for experiments but quadratic for a key every request writes.
 *
 * <p>Deterministic per batch seed. Thread-safe if the decorated mixer is.
 */
public final class FalseNegativeMixer extends KeyRewritingMixer {
    private static final long SALT = 0x6a09e667f3bcc908L;

    /** Decorates {@code inner} with false-negative probability {@code rate}, in [0, 1]. */
    public FalseNegativeMixer(Mixer inner, double rate) {
        super(inner, rate, "false-negative");
    }

    /** The batch with only the conflicts that survive the coin, each as its own pair key. */
    @Override
    BatchKeys rewrite(BatchKeys batch) {
        SeededUniforms coin = new SeededUniforms(batch.seed(), SALT);
        List<Set<Object>> kept = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            kept.add(new HashSet<>());
        }
        ConflictingPairs.of(batch.requests()).forEach((first, second) -> {
            if (coin.atPair(first, second) >= rate) {
                PairKey key = new PairKey(first, second);
                kept.get(first).add(key);
                kept.get(second).add(key);
            }
        });
        List<ConflictKeys> rewritten = new ArrayList<>(batch.size());
        for (Set<Object> keys : kept) {
            rewritten.add(ConflictKeys.of(Set.of(), keys));
        }
        return batch.withRequests(rewritten);
    }
}
