package io.eve.protocol;

import io.eve.Reply;
import io.eve.Request;
import io.eve.batch.Batch;
import io.eve.execution.Token;
import io.eve.merkle.StateDelta;

/**
 * Everything replicas and clients say to each other (docs/protocol.md maps each to its paper section).
 * {@code view} numbers the configuration (who is primary); {@code epoch} numbers rollbacks within the
 * protocol's history, so a message about a discarded execution is recognised and ignored.
 */
public sealed interface Message {

    /** A client's request, to the primary. */
    record ClientRequest(Request request) implements Message {}

    /** The reply to a request, released once its batch committed. */
    record ClientReply(Reply reply) implements Message {}

    /** "I am not the primary; node {@code primary} is, as far as I know." */
    record Redirect(long clientId, long requestSeq, int primary) implements Message {}

    /** Eve §6.2 EXECUTE-BATCH: the primary's batch with its nondeterminism data, to the backup. */
    record ExecuteBatch(long view, long epoch, Batch batch, boolean sequential) implements Message {}

    /** The backup's token for a batch, to the primary, which compares it with its own (Eve §6.2). */
    record BatchToken(long view, long epoch, Token token) implements Message {}

    /** Batch {@code seq} and everything before it committed: the backup marks it stable. */
    record Commit(long view, long seq) implements Message {}

    /**
     * Tokens differed: roll back to {@code toSeq}; the batches after it come again (Eve §6.2). With
     * {@code awaitTransfer}, sequential re-execution differed too: wait for the primary's state first.
     */
    record Rollback(long view, long epoch, long toSeq, boolean awaitTransfer) implements Message {}

    /** Liveness, and the sender's view and last stable batch. */
    record Heartbeat(long view, long stableSeq) implements Message {}

    /** A returning node asks the primary to bring it up to date from its last stable batch. */
    record JoinRequest(long view, long stableSeq) implements Message {}

    /** Incremental state transfer: the changes since the receiver's stable batch, and the token they lead to. */
    record StateTransfer(long view, long epoch, Token token, StateDelta delta) implements Message {}
}
