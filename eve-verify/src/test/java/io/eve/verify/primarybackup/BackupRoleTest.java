package io.eve.verify.primarybackup;

import static io.eve.verify.primarybackup.Pair.SECOND;
import static io.eve.verify.primarybackup.Pair.batch;
import static io.eve.verify.primarybackup.Pair.token;
import static io.eve.verify.primarybackup.Pair.transfer;
import static org.assertj.core.api.Assertions.assertThat;

import io.eve.protocol.Message;
import org.junit.jupiter.api.Test;

/** Each handler of the backup role (and of a backup catching up), with recorded actions. */
class BackupRoleTest {

    private static Pair backup() {
        return Pair.of(SECOND);
    }

    private static Message.ExecuteBatch batchMessage(long epoch, long seq) {
        return new Message.ExecuteBatch(0, epoch, batch(seq), false);
    }

    @Test
    void shouldExecuteBatchesInOrderAndBufferOnesThatComeEarly() {
        Pair pair = backup();
        pair.fromPeer(batchMessage(0, 2), 1);
        assertThat(pair.actions.executed).isEmpty();
        pair.fromPeer(batchMessage(0, 1), 2);
        assertThat(pair.actions.executed).extracting(b -> b.seq()).containsExactly(1L, 2L);
    }

    @Test
    void shouldSendItsTokenOnceExecutedAndAgainWhenThePrimaryRepeatsTheBatch() {
        Pair pair = backup();
        pair.fromPeer(batchMessage(0, 1), 1);
        assertThat(pair.actions.sent(Message.BatchToken.class)).isEmpty();
        pair.executed(pair.lastExecuted(), 1, 0);
        pair.fromPeer(batchMessage(0, 1), 2);
        assertThat(pair.actions.sent(Message.BatchToken.class))
                .hasSize(2)
                .allMatch(t -> t.token().equals(token(1, 1)));
        assertThat(pair.actions.executed).as("executed once").hasSize(1);
    }

    @Test
    void shouldMarkStableOnlyABatchItWasHanded() {
        Pair pair = backup();
        pair.fromPeer(batchMessage(0, 1), 1);
        pair.fromPeer(new Message.Commit(0, 2), 2);
        assertThat(pair.machine.committed()).isZero();
        pair.fromPeer(new Message.Commit(0, 1), 3);
        assertThat(pair.machine.committed()).isEqualTo(1);
        assertThat(pair.actions.log).containsOnlyOnce("stable 1");
    }

    @Test
    void shouldCommitWhatThePrimarysHeartbeatAnnounces() {
        Pair pair = backup();
        pair.fromPeer(batchMessage(0, 1), 1);
        pair.executed(pair.lastExecuted(), 1, 0);
        pair.fromPeer(new Message.Heartbeat(0, 1), 2);
        assertThat(pair.machine.committed()).isEqualTo(1);
        assertThat(pair.actions.log).contains("stable 1");
    }

    @Test
    void shouldRollBackAndIgnoreTheOutcomeOfAnExecutionTheRollbackDiscarded() {
        Pair pair = backup();
        pair.fromPeer(batchMessage(0, 1), 1);
        pair.fromPeer(new Message.Rollback(0, 1, 0, false), 2);
        assertThat(pair.actions.log).last().isEqualTo("rollback 0");
        pair.executed(pair.lastExecuted(), 1, 0);
        assertThat(pair.actions.sent(Message.BatchToken.class))
                .as("an outcome of epoch 0")
                .isEmpty();
        pair.fromPeer(new Message.ExecuteBatch(0, 1, batch(1), true), 3);
        assertThat(pair.actions.log).last().isEqualTo("execute 1 sequential");
        pair.executed(pair.lastExecuted(), 2, 1);
        assertThat(pair.actions.sent(Message.BatchToken.class))
                .singleElement()
                .isEqualTo(new Message.BatchToken(0, 1, token(1, 2)));
    }

    @Test
    void shouldWaitForThePrimarysStateAfterARollbackThatAwaitsATransfer() {
        Pair pair = backup();
        pair.fromPeer(new Message.Rollback(0, 1, 0, true), 1);
        pair.fromPeer(new Message.ExecuteBatch(0, 1, batch(2), false), 2);
        assertThat(pair.actions.executed).isEmpty();
        Message.StateTransfer state = transfer(0, 1, 0, 1);
        pair.fromPeer(state, 3);
        assertThat(pair.actions.log).last().isEqualTo("apply 1");
        pair.machine.onApplied(state, true, "");
        assertThat(pair.machine.committed()).isEqualTo(1);
        assertThat(pair.actions.log).containsSubsequence("apply 1", "stable 1", "execute 2");
        assertThat(pair.actions.sent(Message.BatchToken.class))
                .as("the installed state's token tells the primary it holds what the transfer carried")
                .first()
                .isEqualTo(new Message.BatchToken(0, 1, token(1, 1)));
    }

    @Test
    void shouldCatchUpWhenABatchOfALaterEpochComesWithoutItsRollback() {
        Pair pair = backup();
        pair.fromPeer(batchMessage(0, 1), 1);
        pair.fromPeer(new Message.ExecuteBatch(0, 2, batch(1), true), 2);
        assertThat(pair.actions.log).containsSubsequence("execute 1", "rollback 0", "send 0 JoinRequest");
        assertThat(pair.actions.executed)
                .as("nothing more until the state comes")
                .hasSize(1);
    }

    @Test
    void shouldInstallATransferThatOvertookOneTheStageRefused() {
        Pair pair = Pair.restarted(SECOND, false, 0);
        Message.StateTransfer first = transfer(0, 0, 0, 3);
        Message.StateTransfer second = transfer(0, 0, 0, 5);
        pair.fromPeer(first, 1);
        pair.fromPeer(second, 2);
        assertThat(pair.actions.log).last().as("one install at a time").isEqualTo("apply 3");
        int joins = pair.actions.sent(Message.JoinRequest.class).size();
        pair.machine.onApplied(first, false, "the delta produces root aa, expected bb");
        assertThat(pair.actions.log).last().isEqualTo("apply 5");
        assertThat(pair.actions.sent(Message.JoinRequest.class)).hasSize(joins);
        pair.machine.onApplied(second, true, "");
        assertThat(pair.machine.committed()).isEqualTo(5);
        assertThat(pair.machine.joining()).isFalse();
    }

    @Test
    void shouldAskAgainWhenALaterTransferCameWhileOneWasInstalled() {
        Pair pair = Pair.restarted(SECOND, false, 0);
        Message.StateTransfer first = transfer(0, 0, 0, 3);
        pair.fromPeer(first, 1);
        pair.fromPeer(transfer(0, 0, 0, 5), 2);
        int joins = pair.actions.sent(Message.JoinRequest.class).size();
        pair.machine.onApplied(first, true, "");
        assertThat(pair.machine.committed()).isEqualTo(3);
        assertThat(pair.actions.sent(Message.JoinRequest.class))
                .as("the primary does not send again the batches the dropped transfer carried")
                .hasSize(joins + 1)
                .last()
                .isEqualTo(new Message.JoinRequest(0, 3));
    }

    @Test
    void shouldTakeOverAndServeAPrimaryThatRestarted() {
        Pair pair = backup();
        pair.fromPeer(new Message.JoinRequest(0, 0), 1);
        assertThat(pair.machine.isPrimary()).isTrue();
        assertThat(pair.machine.view()).isEqualTo(1);
        assertThat(pair.actions.log).last().isEqualTo("transfer 0 since 0");
    }

    @Test
    void shouldRejoinWhenThePeerIsInALaterView() {
        Pair pair = backup();
        pair.fromPeer(new Message.Heartbeat(2, 0), 1);
        assertThat(pair.machine.joining()).isTrue();
        assertThat(pair.machine.view()).isEqualTo(2);
        pair.tick(300);
        assertThat(pair.machine.isPrimary())
                .as("a joining replica never takes over on silence")
                .isFalse();
    }

    @Test
    void shouldSendJoinRequestsWhileCatchingUpExceptWhileInstalling() {
        Pair pair = Pair.restarted(SECOND, false, 0);
        pair.tick(10);
        assertThat(pair.actions.sent(Message.JoinRequest.class)).hasSize(2);
        assertThat(pair.actions.sent(Message.Heartbeat.class)).isEmpty();
        pair.fromPeer(transfer(0, 0, 0, 3), 11);
        pair.tick(20);
        assertThat(pair.actions.sent(Message.JoinRequest.class)).hasSize(2);
    }

    @Test
    void shouldRedirectClientsToThePrimaryButNotToItselfWhileJoiningInItsOwnView() {
        Pair second = Pair.restarted(SECOND, false, 0);
        second.fromClient(1, 1);
        assertThat(second.actions.sent(Message.Redirect.class))
                .singleElement()
                .satisfies(r -> assertThat(r.primary()).isEqualTo(Pair.FIRST));
        Pair first = Pair.restarted(Pair.FIRST, false, 0);
        first.fromClient(1, 1);
        assertThat(first.actions.sent(Message.Redirect.class))
                .as("the primary of view 0 by number, restarted: a redirect to itself would loop")
                .isEmpty();
        assertThat(first.actions.executed).isEmpty();
    }

    /**
     * The simulator's holder-crash seed 96: a heartbeat of a later view carries no epoch, and the primary that
     * sends it (restarted from its disk) leads from epoch 0, while this backup counted two rollbacks in view 0.
     * The later view starts from epoch 0 here, so its transfer is installed, not dropped as stale.
     */
    @Test
    void shouldInstallTheTransferOfALaterViewItEnteredFromAHeartbeat() {
        Pair pair = backup();
        pair.fromPeer(new Message.Rollback(0, 2, 0, false), 1);
        pair.fromPeer(new Message.Heartbeat(2, 5), 2);
        assertThat(pair.machine.view()).isEqualTo(2);
        assertThat(pair.machine.joining()).isTrue();
        pair.fromPeer(Pair.transfer(2, 0, 0, 5), 3);
        assertThat(pair.actions.log).contains("apply 5");
    }
}
