/**
 * Naming the objects on which replicas diverged when a batch still differs after sequential re-execution
 * (docs/state.md, "Diagnosing a batch that still differs"): comparing two replicas' {@code ObjectDigests} id
 * by id ({@link io.eve.verify.diagnosis.Divergence}) and keeping, with bounded memory, the reports peers sent
 * ({@link io.eve.verify.diagnosis.DigestReports}). A report only: nothing here decides what commits.
 */
package io.eve.verify.diagnosis;
