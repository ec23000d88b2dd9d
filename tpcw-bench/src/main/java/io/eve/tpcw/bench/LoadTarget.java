package io.eve.tpcw.bench;

/**
 * What the closed-loop load drives: one blocking call per interaction, and the pipeline's counters. The
 * browser threads call it concurrently, so implementations are thread-safe.
 */
interface LoadTarget {
    /** Runs one interaction for client {@code clientId}; true if it committed, false for an error reply. */
    boolean call(long clientId, byte[] payload) throws Exception;

    /** Counters of the execution pipeline at this moment (zeros where the mode has none). */
    Target.PipelineCounters counters();
}
