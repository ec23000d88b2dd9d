package io.eve.bench.suite;

import java.io.IOException;

/**
 * One way of serving the key-value workload: unreplicated, replicated sequentially, Eve primary-backup,
 * a peer system. The suite starts a fresh {@link Running} system for every point, drives it with the
 * same closed-loop clients, then checks and closes it. New profiles (Eve's crash and BFT quorums) plug in
 * by implementing this interface and registering in {@link Modes}.
 *
 * <p>Implementations are stateless and thread-safe; a {@link Running} system is called from all client
 * threads at once.
 */
public interface Mode {
    /** A short stable id for the command line and JSON ({@code eve-pb}). */
    String id();

    /** A label for tables and plots ({@code Eve primary-backup}). */
    String label();

    /** How many replicas execute every request (1 unreplicated, 2 primary-backup, 3 for Raft). */
    int executionReplicas();

    /** Whether the execution thread count changes this mode; if not, the suite runs it once per sweep. */
    boolean usesThreads();

    /**
     * Starts a system for this workload; it is ready to serve when this returns. Client-side objects
     * (client libraries and their connections) are built through {@code clients}, so that the threads
     * they start are charged to the clients, not to the servers.
     */
    Running start(Workload workload, ClientSide clients) throws Exception;

    /** A started system. */
    interface Running extends AutoCloseable {
        /** Executes one request for {@code client} and waits for its reply. */
        void call(int client, byte[] request) throws Exception;

        /**
         * Whether a thread does client-side work and so is not charged to the servers. By default, the
         * threads started under {@link ClientSide} (the suite's driver threads and whatever they or the
         * client libraries built there start).
         */
        default boolean isClientThread(Thread thread, ClientSide clients) {
            return clients.owns(thread);
        }

        /** Checks the system after the clients stopped: replicas agree, nothing failed. */
        Check check() throws Exception;

        @Override
        void close() throws IOException;
    }

    /**
     * What the end-of-point check found.
     *
     * @param ok nothing failed and replicas agree where that is checked
     * @param rootsEqual whether every replica's state root at the last stable batch is the same, or
     *     {@code null} where this mode has no state roots to compare
     * @param rollbacks rollbacks seen by the primary (Eve), 0 elsewhere
     * @param detail a human-readable summary
     */
    record Check(boolean ok, Boolean rootsEqual, long rollbacks, String detail) {
        public static Check passed(String detail) {
            return new Check(true, null, 0, detail);
        }
    }
}
