/** The primary's batcher and the {@link io.eve.batch.Batch} it produces (DESIGN.md section 2). */
package io.eve.batch;
