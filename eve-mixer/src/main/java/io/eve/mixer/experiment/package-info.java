/**
 * Decorators that make a mixer deliberately wrong, to reproduce the experiments of Eve §7.2 and §7.4
 * (Figs. 6, 7 and 9): {@link io.eve.mixer.experiment.FalseNegativeMixer} hides conflicts and
 * {@link io.eve.mixer.experiment.FalsePositiveMixer} invents them, each at a chosen per-pair rate.
 *
 * <p>Both work by rewriting the batch's conflict keys before the decorated mixer sees them, so they combine
 * with any key-based mixer. Their randomness comes only from the batch seed: every replica makes the same
 * mistakes. The mechanics are package-private: {@code ConflictingPairs} finds conflicting pairs,
 * {@code SeededUniforms} and {@code PairSampler} draw from the seed, {@code PairKey} is the synthetic key.
 */
package io.eve.mixer.experiment;
