package io.eve.verify.quorum;

import io.eve.Reply;
import io.eve.batch.Batch;
import io.eve.execution.Token;
import io.eve.protocol.Message.ChainTransfer;

/**
 * What an {@link ExecutionReplica} asks of its surroundings besides sending messages. The runtime binds
 * it to an execution stage thread, the simulator to a simulated stage. Stage operations run in the order
 * requested, one at a time; outcomes come back through {@link ExecutionReplica#onExecuted} and
 * {@link ExecutionReplica#onApplied}.
 */
public interface ExecutionActions extends Outbox {
    void execute(long epoch, Batch batch, boolean sequential);

    void rollbackTo(long seq);

    void markStable(long seq);

    /**
     * If the stage holds {@code agreed} as its token for {@code agreed.seq()}, sends {@code to} a
     * {@link ChainTransfer} of the changes since {@code baseSeq} with its tokens from the agreed one on.
     */
    void serveTransfer(int to, long baseSeq, Token agreed);

    void apply(ChainTransfer transfer);

    /**
     * Answers a retried request from the reply cache of the stage's state, if that state is committed and
     * holds the reply (a replica that caught up by transfer never executed the request itself).
     */
    void replyFromState(long clientId, long requestSeq);

    /** Sends the reply of a request that just committed to its client (once per request). */
    void release(Reply reply);

    /** Sends a committed reply again, to a client that retried its request. */
    void resend(Reply reply);
}
