package io.eve.verify.runtime;

import io.eve.Reply;
import io.eve.batch.Batch;
import io.eve.execution.Executed;
import io.eve.execution.ExecutionStage;
import io.eve.execution.Token;
import io.eve.merkle.ApplyResult;
import io.eve.merkle.StateDelta;
import io.eve.protocol.Message;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * What the {@link ReplicaRuntime} does for the roles it hosts: the only way a role reaches a thread, the
 * transport or the execution stage. Called from the roles' handlers, on the protocol mailbox. Callbacks
 * ({@code onExecuted}, {@code onApplied}, {@code onDraining}) come back on the protocol mailbox too, after
 * the current event; stage work runs on the stage mailbox in the order requested.
 */
public interface ReplicaHost {

    /** This node's id. */
    int self();

    /** The wall clock in milliseconds: batch timestamps and what roles log; never for timeouts. */
    long wallMillis();

    /** Sends a message; one to {@link #self()} is delivered through the protocol mailbox, never re-entrantly. */
    void send(int to, Message message);

    /** Runs {@code task} on the protocol mailbox after the current event; from any thread (a writer's report). */
    void onProtocol(Runnable task);

    /** Executes a batch on the stage; {@code onExecuted} gets the outcome on the protocol mailbox. */
    void execute(Batch batch, boolean sequential, Consumer<Executed> onExecuted);

    /** Restores the stage's state to batch {@code seq} (a rollback the protocol ordered). */
    void rollbackTo(long seq);

    /** Batch {@code seq} is committed: the stage may forget the versions before it. */
    void markStable(long seq);

    /** Sends the reply of a request that just committed to its client (counted once per request). */
    void release(Reply reply);

    /**
     * Sends a committed reply again, to a client that retried its request: like {@link #release}, after its
     * batch is durable, but counted apart.
     */
    void resend(Reply reply);

    /**
     * Installs a state transfer on the stage thread, checked against {@code expected}; {@code onApplied}
     * gets the outcome on the protocol mailbox.
     */
    void apply(StateDelta delta, Token expected, Consumer<ApplyResult> onApplied);

    /** Work on the stage thread that may take long (serving a transfer): never on the calling thread. */
    void onStageThread(Consumer<ExecutionStage> work);

    /** Short stage work, on the calling thread if the stage is idle. */
    void onStage(Consumer<ExecutionStage> work);

    /**
     * The last committed batch this node recovered from its disk at start (0: none, or no storage): the
     * execution stage already holds it, and a joining node asks its peers only for what came after.
     */
    default long recoveredSeq() {
        return 0;
    }

    /**
     * Whether {@link #recoveredSeq()} covers every batch this node acknowledged before it stopped: true with
     * {@code storage.sync=batch} (a reply leaves only once its batch is forced), false without storage or with
     * a sync on an interval.
     */
    default boolean recoveredEveryAcknowledgedBatch() {
        return false;
    }

    /**
     * The token of {@link #recoveredSeq()} as the stage holds it after recovery, or null when nothing was
     * recovered: roles that check agreement on tokens (the quorum execution replica) resume from it.
     */
    default Token recoveredToken() {
        return null;
    }

    /**
     * The batches executed after {@link #recoveredSeq()} that the stage recovered from the executed tail on
     * disk and executed again, in order, not committed (empty without: see {@link
     * HostedRoles.Factory#persistsExecuted}).
     */
    default List<Executed> recoveredExecuted() {
        return List.of();
    }

    /**
     * Runs {@code task} (on the protocol mailbox) once the last execution of batch {@code seq} is durable in the
     * executed tail; at once when the roles persist no executed batches or the batch is already durable.
     */
    default void afterExecutedDurable(long seq, Runnable task) {
        task.run();
    }

    /**
     * Runs {@code task} (on the protocol mailbox) once the executed tail durably records that this node
     * numbers batches in view {@code view} as its primary: a primary's batches of a view leave only after that
     * (docs/quorum.md, "Durable replicas and verifiers"). At once when the roles persist no executed batches or
     * the record already holds {@code view} or a later view.
     */
    default void afterLedDurable(long view, Runnable task) {
        task.run();
    }

    /** The highest view this node numbered batches in during an earlier life, from its executed tail; -1: none. */
    default long recoveredLedView() {
        return -1;
    }

    /**
     * The view to start in: the one the recovered batch committed in, or, when the launcher chose this node to
     * lead a restarted cluster ({@code ReplicaRuntimeBuilder.resumeAsPrimary}), the view it chose (0 without
     * storage).
     */
    default long recoveredView() {
        return 0;
    }

    /**
     * The number of this start of the node, above those of its earlier starts ({@link Incarnations}): a
     * verifier's join nonce. Asked once, while the roles are created.
     */
    default long incarnation() {
        return Incarnations.next();
    }

    /**
     * Lets consecutive batches overlap in the stage (docs/state.md, "Overlapping batches"); {@code
     * onDraining} hears, on the protocol mailbox, when the stage runs the last requests of batch n. Only while
     * the roles are created.
     */
    void overlapBatches(LongConsumer onDraining);
}
