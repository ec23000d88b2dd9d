/**
 * Rollback feedback for the mixer (Eve §5.1, last paragraph: the mixer "can be improved over time using
 * feedback from the system"): after a batch rolls back, the keys it ran in parallel conflict more coarsely
 * for a fixed number of batches.
 *
 * <p>{@link io.eve.mixer.feedback.RollbackFeedbackMixer} is the public entry; {@code CoarseRule} and
 * {@code CoarseKey} are its package-private mechanics. Feedback enters only through
 * {@link io.eve.mixer.Mixer#onRollback} and is applied by batch seq, never by time, so replicas that see the
 * same rollbacks mix the same way.
 */
package io.eve.mixer.feedback;
