/**
 * The mixer (Eve §5.1, DESIGN.md section 5): the step between receiving a batch and executing it, which
 * splits the batch into the ordered {@link io.eve.mixer.ParallelBatch}es every replica runs.
 *
 * <pre>
 *   BatchKeys(seq, seed, [ConflictKeys per request])
 *        │ Mixer.partition (Mixer.mix gives the parallel batches alone)
 *        ▼
 *   Partition: [ParallelBatch 0][ParallelBatch 1]…  + the BatchKeys the split was computed from
 * </pre>
 *
 * <p>A request of a later parallel batch runs after the earlier requests it conflicts with under the
 * partition's keys; requests inside one parallel batch run concurrently.
 *
 * <p>This package holds the port ({@link io.eve.mixer.Mixer}), its input and output values ({@link
 * io.eve.mixer.BatchKeys}, {@link io.eve.mixer.ParallelBatch}, {@link io.eve.mixer.Partition}) and the two
 * trivial mixers. The real work lives in sub-packages: {@link io.eve.mixer.conflict} (first-fit on read and
 * write keys), {@link io.eve.mixer.experiment} (decorators that inject false negatives and false positives
 * for Eve Figs. 6, 7 and 9) and {@link io.eve.mixer.feedback} (coarser conflicts after a rollback).
 *
 * <p>The module is a leaf: it depends on the JDK only and knows nothing of requests, payloads or state.
 */
package io.eve.mixer;
