package io.eve.verify.primarybackup;

import io.eve.execution.Executed;
import io.eve.protocol.Message;
import io.eve.protocol.Message.BatchToken;
import io.eve.protocol.Message.ClientRequest;
import io.eve.protocol.Message.Commit;
import io.eve.protocol.Message.ExecuteBatch;
import io.eve.protocol.Message.Heartbeat;
import io.eve.protocol.Message.JoinRequest;
import io.eve.protocol.Message.ObjectDigests;
import io.eve.protocol.Message.Rollback;
import io.eve.protocol.Message.StateTransfer;

/**
 * What one replica of the pair is in its current view: the {@link PrimaryRole} or the {@link BackupRole}
 * (which may be {@link CatchingUp}). {@link PrimaryBackup} routes every input to the current role, one handler
 * per message type; a role that hands over (a takeover, a demotion) installs its successor in the
 * {@link PairContext}. Called on the protocol thread only.
 */
sealed interface Role permits PrimaryRole, BackupRole {

    void onClientRequest(int from, ClientRequest request);

    void onExecuteBatch(ExecuteBatch message);

    void onBatchToken(BatchToken message);

    void onCommit(Commit message);

    void onRollback(Rollback message);

    void onStateTransfer(StateTransfer message);

    void onJoinRequest(JoinRequest message);

    void onHeartbeat(Heartbeat message);

    /** The peer's object digests of a batch it ran sequentially: only a primary diagnosing a mismatch uses them. */
    default void onObjectDigests(ObjectDigests message) {}

    /** Any message from the peer, before its handler. */
    default void onHeard(Message message) {}

    /** The heartbeat interval passed: tell the peer this replica is alive (or still waiting for state). */
    void sendHeartbeat();

    void onTick(long now);

    /** The witness answered (or probed): act on a grant or a refusal this role waits for. */
    void onFenceAnswered();

    void onExecuted(long executedView, long executedEpoch, Executed executed);

    void onStageDraining(long seq);

    void onApplied(StateTransfer transfer, boolean applied, String reason);

    /** Whether the peer counts as alive. */
    boolean peerAlive();
}
