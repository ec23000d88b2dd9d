package io.eve.verify.primarybackup;

import io.eve.Reply;
import io.eve.batch.Batch;
import io.eve.protocol.Message;

/**
 * What the {@link PrimaryBackup} state machine asks of its surroundings. The runtime binds it to a
 * transport and an execution stage thread; the simulator to a simulated network and a direct stage.
 * Stage operations ({@code execute}, {@code rollbackTo}, {@code markStable}, {@code transfer},
 * {@code apply}) run in the order requested, one at a time; their outcomes come back through
 * {@link PrimaryBackup#onExecuted} and {@link PrimaryBackup#onApplied}.
 */
public interface Actions {
    void send(int to, Message message);

    void execute(long view, long epoch, Batch batch, boolean sequential);

    void rollbackTo(long seq);

    void markStable(long seq);

    /** Sends {@code to} a {@link Message.StateTransfer} of the changes since {@code sinceSeq}. */
    void transfer(int to, long sinceSeq, long view, long epoch);

    void apply(Message.StateTransfer transfer);

    /** Sends a committed reply to its client. */
    void release(Reply reply);
}
