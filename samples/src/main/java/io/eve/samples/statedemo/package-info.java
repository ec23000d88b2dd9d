/**
 * A runnable demonstration of eve-merkle: parallel execution on three replicas, root comparison,
 * rollback and sequential re-execution of a divergent batch, and incremental state transfer.
 */
package io.eve.samples.statedemo;
