package io.eve;

import java.time.Duration;

/**
 * A running replica of a replicated service, whatever its profile (primary-backup, crash, bft) and
 * whatever roles the profile gives its node: the handle an embedding program or the launcher holds.
 *
 * <p>Thread-safe. Once closed, or stopped by an internal failure, every call but {@link #close()} fails at
 * once with {@link ReplicaClosedException}; it never waits for threads that are gone.
 */
public interface Replica extends AutoCloseable {

    /** What a node does in the protocol right now. */
    enum Role {
        /** Orders requests into batches: the primary of primary-backup, the execution primary of a quorum view. */
        PRIMARY,
        /** Executes the primary's batches and has its token checked: a backup, or another execution replica. */
        BACKUP,
        /** Only verifies tokens (a quorum process without an execution replica). */
        VERIFIER,
        /** Restarted and catching up (state transfer, or a verifier waiting for a view): not serving yet. */
        JOINING
    }

    /** Starts the replica's threads and its transport. Call once. */
    void start();

    /** The node's id in the cluster. */
    int node();

    /** A consistent snapshot of the replica's role, view, committed state and counters. */
    ReplicaStatus status();

    /**
     * Waits until the replica has {@code role}.
     *
     * @return the first status showing it
     * @throws ReplicaClosedException if the replica is closed or fails meanwhile
     * @throws java.util.concurrent.TimeoutException if {@code timeout} passes first
     */
    ReplicaStatus awaitRole(Role role, Duration timeout)
            throws InterruptedException, java.util.concurrent.TimeoutException;

    /** Stops the replica's threads and closes its transport and endpoints. Idempotent. */
    @Override
    void close();
}
