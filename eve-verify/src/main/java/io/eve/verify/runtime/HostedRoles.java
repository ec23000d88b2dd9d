package io.eve.verify.runtime;

import io.eve.protocol.Message;
import java.util.function.LongSupplier;

/**
 * The protocol roles a node hosts (primary-backup's state machine; a quorum process's execution replica,
 * verifier, or both), as the {@link ReplicaRuntime} drives them: every call on the runtime's protocol
 * mailbox, one at a time, with the time as an argument. What the roles ask in return goes through the
 * {@link ReplicaHost} they were created with.
 */
public interface HostedRoles {

    /** Called once, before any message or tick. */
    void start(long nanos);

    /** A message from {@code from} (another node, a client, or this node itself). */
    void onMessage(int from, Message message, long nanos, long wallMillis);

    /** The runtime's periodic tick (failure detection, batching deadlines, retries). */
    void onTick(long nanos, long wallMillis);

    /** What the roles say about themselves now. */
    RoleStatus status();

    /** Creates a node's roles; what the runtime's builder is given per profile. */
    interface Factory {
        /** The node the roles are for; the transport must be the same node. */
        int self();

        /** Whether the roles need an execution stage (an application, a mixer and executor threads). */
        boolean hostsExecution();

        /**
         * Whether the roles start from the batch {@link ReplicaHost#recoveredSeq()} says the stage recovered from
         * disk; roles that do not cannot be given storage (their first transfer would not fit the stage).
         */
        default boolean resumesFromDisk() {
            return false;
        }

        /**
         * Whether, with storage, each executed batch must be durable before the roles tell others about it
         * ({@link ReplicaHost#afterExecutedDurable}): the quorum execution replica's {@code Verify} (docs/quorum.md,
         * "Durable replicas and verifiers"). Costs a second record per group of batches.
         */
        default boolean persistsExecuted() {
            return false;
        }

        /**
         * Creates the roles, bound to {@code host}.
         *
         * @param joining the node restarts without its state and must catch up before it serves
         * @param seeds fresh random numbers (batch seeds)
         */
        HostedRoles create(ReplicaHost host, boolean joining, LongSupplier seeds);
    }
}
