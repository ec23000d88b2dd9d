/**
 * Verbs bookkeeping both fabrics share, pure Java: work-request ids that name the queue pair that posted
 * them ({@link io.eve.rdma.verbs.WorkRequestIds}) and the writes a queue pair has outstanding ({@link
 * io.eve.rdma.verbs.PendingWrites}). The DiSNI fabric and the in-memory fabric run the same code here, so
 * what the in-memory fault injection proves about completions holds for DiSNI too.
 */
package io.eve.rdma.verbs;
