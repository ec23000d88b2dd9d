package io.eve.tpcw.bench;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * A system under test in this JVM: started, driven by one blocking call per interaction, checked (its
 * databases are reachable from here), stopped.
 */
interface Target extends LoadTarget, AutoCloseable {
    /** Interactions the system committed since it started. */
    long committed();

    /** A read-only connection to the (primary's) database, for the invariant checks. */
    Connection inspect() throws SQLException;

    /** After the load has stopped: waits for the replicas to settle and returns whether their roots agree. */
    RootCheck checkRoots() throws Exception;

    @Override
    void close();

    /** Pipeline counters: batches executed, their requests, their parallel batches, rollbacks. */
    record PipelineCounters(long batches, double batchedRequests, double parallelBatches, long rollbacks) {
        static final PipelineCounters NONE = new PipelineCounters(0, 0, 0, 0);
    }

    /** The outcome of comparing replicas: agreed, the version compared, and a description. */
    record RootCheck(boolean agreed, long seq, String detail) {
        static final RootCheck NOT_REPLICATED = new RootCheck(true, -1, "unreplicated");
    }
}
