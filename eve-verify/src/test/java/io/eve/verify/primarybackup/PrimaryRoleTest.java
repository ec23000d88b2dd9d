package io.eve.verify.primarybackup;

import static io.eve.verify.primarybackup.Pair.FIRST;
import static io.eve.verify.primarybackup.Pair.SECOND;
import static io.eve.verify.primarybackup.Pair.batch;
import static io.eve.verify.primarybackup.Pair.token;
import static org.assertj.core.api.Assertions.assertThat;

import io.eve.protocol.Message;
import org.junit.jupiter.api.Test;

/** Each handler of the primary role, driven through {@link PrimaryBackup} with recorded actions. */
class PrimaryRoleTest {

    /** Node 0, the primary of view 0, having heard its backup. */
    private static Pair primary() {
        Pair pair = Pair.of(FIRST);
        pair.fromPeer(new Message.Heartbeat(0, 0), 0);
        return pair;
    }

    @Test
    void shouldSendEachBatchToTheBackupBeforeExecutingIt() {
        Pair pair = primary();
        pair.fromClient(1, 1);
        assertThat(pair.actions.log).containsSubsequence("send 1 ExecuteBatch", "execute 1");
        assertThat(pair.actions.sent(Message.ExecuteBatch.class))
                .singleElement()
                .satisfies(m -> assertThat(m.batch().seq()).isEqualTo(1));
    }

    @Test
    void shouldIgnoreATokenOfAnotherEpoch() {
        Pair pair = primary();
        pair.fromClient(1, 1);
        pair.executed(pair.lastExecuted(), 1, 0);
        pair.fromPeer(new Message.BatchToken(0, 3, token(1, 1)), 2);
        assertThat(pair.released()).isZero();
        pair.fromPeer(new Message.BatchToken(0, 0, token(1, 1)), 3);
        assertThat(pair.released()).isEqualTo(1);
        assertThat(pair.actions.sent(Message.Commit.class)).singleElement().isEqualTo(new Message.Commit(0, 1));
    }

    @Test
    void shouldCommitInBatchOrderWhateverOrderTheTokensComeIn() {
        Pair pair = primary();
        pair.fromClient(1, 1);
        pair.executed(batch(1), 1, 0);
        pair.fromClient(2, 2);
        pair.executed(pair.lastExecuted(), 1, 0);
        pair.fromPeer(new Message.BatchToken(0, 0, token(2, 1)), 3);
        assertThat(pair.released()).as("batch 1 still waits for its token").isZero();
        pair.fromPeer(new Message.BatchToken(0, 0, token(1, 1)), 4);
        assertThat(pair.actions.released).extracting(r -> r.requestSeq()).containsExactly(1L, 2L);
        assertThat(pair.machine.committed()).isEqualTo(2);
    }

    @Test
    void shouldAskAgainForATokenThatDoesNotCome() {
        Pair pair = primary();
        pair.fromClient(1, 1);
        pair.executed(pair.lastExecuted(), 1, 0);
        pair.tick(20);
        assertThat(pair.actions.sent(Message.ExecuteBatch.class)).hasSize(1);
        pair.tick(40);
        assertThat(pair.actions.sent(Message.ExecuteBatch.class))
                .as("three heartbeat intervals without progress: the batch or its token was lost")
                .hasSize(2);
    }

    @Test
    void shouldServeAJoinWithTheChangesSinceTheJoinersBatchAndCommitWhatTheTransferCarries() {
        Pair pair = primary();
        pair.fromClient(1, 1);
        pair.executed(pair.lastExecuted(), 1, 0);
        assertThat(pair.released()).isZero();
        pair.fromPeer(new Message.JoinRequest(0, 0), 2);
        assertThat(pair.actions.log)
                .as("batch 1 was dispatched before the transfer: the transfer carries it, so it commits alone")
                .containsSubsequence("transfer 1 since 0", "release 1");
        pair.fromClient(2, 3);
        assertThat(pair.actions.sent(Message.ExecuteBatch.class))
                .as("the batches after the transfer go to the joiner")
                .hasSize(2);
    }

    @Test
    void shouldHaveABackupThatWasSilentAwaitTheStateWhenItIsHeardAgain() {
        Pair pair = primary();
        pair.tick(150);
        assertThat(pair.machine.peerAlive()).isFalse();
        pair.fromPeer(new Message.Heartbeat(0, 0), 160);
        assertThat(pair.actions.sent(Message.Rollback.class))
                .singleElement()
                .isEqualTo(new Message.Rollback(0, 0, 0, true));
        assertThat(pair.actions.log).last().isEqualTo("transfer 1 since 0");
        assertThat(pair.machine.peerAlive()).isTrue();
    }

    @Test
    void shouldRejoinAsBackupWhenThePeerIsInALaterView() {
        Pair pair = primary();
        pair.fromClient(1, 1);
        pair.executed(pair.lastExecuted(), 1, 0);
        pair.fromPeer(new Message.Heartbeat(1, 0), 2);
        assertThat(pair.machine.isPrimary()).isFalse();
        assertThat(pair.machine.joining()).isTrue();
        assertThat(pair.machine.view()).isEqualTo(1);
        assertThat(pair.actions.sent(Message.JoinRequest.class)).last().isEqualTo(new Message.JoinRequest(1, 0));
        pair.fromPeer(new Message.BatchToken(1, 0, token(1, 1)), 3);
        assertThat(pair.released()).as("the unverified batch is never released").isZero();
    }

    @Test
    void shouldStepDownAndCatchUpWhenThePeerSendsABatchOfALaterView() {
        Pair pair = primary();
        pair.fromPeer(new Message.ExecuteBatch(1, 0, batch(1), false), 2);
        assertThat(pair.machine.isPrimary()).isFalse();
        assertThat(pair.machine.view()).isEqualTo(1);
        assertThat(pair.actions.log).contains("rollback 0");
        assertThat(pair.actions.executed)
                .as("it waits for the state before executing")
                .isEmpty();
        assertThat(pair.actions.sent(Message.JoinRequest.class)).singleElement();
    }

    @Test
    void shouldIgnoreMessagesOnlyABackupActsOn() {
        Pair pair = primary();
        pair.fromClient(1, 1);
        pair.fromPeer(new Message.Commit(0, 1), 2);
        pair.fromPeer(new Message.Rollback(0, 1, 0, false), 3);
        pair.fromPeer(new Message.ExecuteBatch(0, 0, batch(1), false), 4);
        assertThat(pair.machine.isPrimary()).isTrue();
        assertThat(pair.machine.committed()).isZero();
        assertThat(pair.actions.log).noneMatch(line -> line.startsWith("rollback") || line.startsWith("stable"));
    }

    @Test
    void shouldTakeTheOutcomeOfABatchTheStageRanUnderTheOldViewAfterATakeover() {
        Pair backup = Pair.of(SECOND);
        backup.fromPeer(new Message.ExecuteBatch(0, 0, batch(1), false), 1);
        assertThat(backup.actions.executed).hasSize(1);
        backup.tick(200);
        assertThat(backup.machine.isPrimary()).isTrue();
        assertThat(backup.released()).as("batch 1 is still inside the stage").isZero();
        backup.machine.onExecuted(0, 0, Pair.executed(batch(1), 1), 201);
        assertThat(backup.released())
                .as("the batch handed under view 0 commits in view 1")
                .isEqualTo(1);
        assertThat(backup.machine.committed()).isEqualTo(1);
    }
}
