package io.eve.verify.primarybackup;

import static io.eve.verify.primarybackup.Pair.FIRST;
import static io.eve.verify.primarybackup.Pair.SECOND;
import static io.eve.verify.primarybackup.Pair.token;
import static org.assertj.core.api.Assertions.assertThat;

import io.eve.protocol.Message;
import org.junit.jupiter.api.Test;

/**
 * The fence paths of the pair with a witness (docs/primary-backup.md, "Fencing with a witness"): a primary
 * releases a reply only for a batch whose token the backup matched, or while it holds a solo grant for its
 * view; a backup takes over only with a grant for the next view.
 */
class PrimaryBackupFenceTest {

    /** Node 0, primary of view 0 with a witness, with batch 1 executed and waiting for the backup's token. */
    private static Pair primaryWaitingForItsBackup() {
        Pair pair = Pair.withWitness(FIRST);
        pair.fromPeer(new Message.Heartbeat(0, 0), 0);
        pair.fromClient(1, 1);
        pair.executed(pair.lastExecuted(), 1, 0);
        return pair;
    }

    @Test
    void shouldAskForTheSoloGrantWhenTheBackupFallsSilentAndCommitOnlyOnceItIsHeld() {
        Pair pair = primaryWaitingForItsBackup();
        pair.tick(150);
        assertThat(pair.machine.peerAlive()).isFalse();
        assertThat(pair.lastFenceRequest()).satisfies(r -> {
            assertThat(r.solo()).isTrue();
            assertThat(r.view()).isZero();
        });
        pair.tick(160);
        assertThat(pair.released()).as("asked, not granted").isZero();
        pair.witnessGrants(161);
        assertThat(pair.released()).isEqualTo(1);
        assertThat(pair.machine.soloHeld()).isTrue();
    }

    @Test
    void shouldRejoinAsBackupAndReleaseNothingUnverifiedWhenTheWitnessRefuses() {
        Pair pair = primaryWaitingForItsBackup();
        pair.tick(150);
        pair.witnessRefuses(1, SECOND, 151);
        assertThat(pair.machine.isPrimary()).isFalse();
        assertThat(pair.machine.joining()).isTrue();
        assertThat(pair.machine.view()).isEqualTo(1);
        assertThat(pair.actions.log).containsSubsequence("execute 1", "rollback 0");
        assertThat(pair.actions.sent(Message.JoinRequest.class)).last().isEqualTo(new Message.JoinRequest(1, 0));
        pair.tick(300);
        pair.fromPeer(new Message.BatchToken(0, 0, token(1, 1)), 301);
        assertThat(pair.released()).isZero();
        assertThat(pair.machine.committed()).isZero();
    }

    @Test
    void shouldKeepWaitingWhenTheWitnessRefusesBecauseAnotherHolderOfTheSameViewHasNotGivenItBack() {
        Pair pair = primaryWaitingForItsBackup();
        pair.tick(150);
        pair.witnessRefuses(0, SECOND, 151);
        assertThat(pair.machine.isPrimary()).isTrue();
        assertThat(pair.released()).isZero();
    }

    @Test
    void shouldTakeOverOnlyOnceTheWitnessGrantsTheNextView() {
        Pair pair = Pair.withWitness(SECOND);
        pair.fromPeer(new Message.Heartbeat(0, 0), 0);
        pair.tick(150);
        assertThat(pair.machine.isPrimary()).isFalse();
        assertThat(pair.lastFenceRequest()).satisfies(r -> {
            assertThat(r.solo()).isTrue();
            assertThat(r.view()).isEqualTo(1);
        });
        pair.witnessGrants(151);
        assertThat(pair.machine.isPrimary()).isTrue();
        assertThat(pair.machine.view()).isEqualTo(1);
    }

    @Test
    void shouldStayBackupWhenTheWitnessRefusesTheTakeoverAndAskAgainAfterAnotherTimeout() {
        Pair pair = Pair.withWitness(SECOND);
        pair.fromPeer(new Message.Heartbeat(0, 0), 0);
        pair.tick(150);
        long firstRequest = pair.lastFenceRequest().requestId();
        pair.witnessRefuses(0, FIRST, 151);
        assertThat(pair.machine.isPrimary()).isFalse();
        assertThat(pair.machine.view()).isZero();
        pair.tick(200);
        assertThat(pair.lastFenceRequest().requestId())
                .as("within a timeout of the refusal")
                .isEqualTo(firstRequest);
        pair.tick(260);
        assertThat(pair.lastFenceRequest().requestId()).isNotEqualTo(firstRequest);
        assertThat(pair.machine.isPrimary()).isFalse();
    }

    @Test
    void shouldGiveThePairBackOnlyOnceTheBackupsTokenMatchedAtOrAfterTheLastSoloCommit() {
        Pair pair = primaryWaitingForItsBackup();
        pair.tick(150);
        pair.witnessGrants(151);
        pair.fromClient(2, 152);
        pair.executed(pair.lastExecuted(), 1, 0);
        assertThat(pair.machine.committed())
                .as("batches 1 and 2 committed alone")
                .isEqualTo(2);
        pair.fromPeer(new Message.JoinRequest(0, 0), 160);
        assertThat(pair.actions.log).last().isEqualTo("transfer 1 since 0");
        pair.fromPeer(new Message.BatchToken(0, 0, token(1, 1)), 161);
        assertThat(pair.actions.sent(Message.Commit.class)).last().isEqualTo(new Message.Commit(0, 1));
        assertThat(pair.machine.soloHeld())
                .as("batch 2 was committed alone after it")
                .isTrue();
        pair.fromPeer(new Message.BatchToken(0, 0, token(2, 1)), 162);
        assertThat(pair.machine.soloHeld()).isFalse();
        assertThat(pair.lastFenceRequest()).satisfies(r -> {
            assertThat(r.solo()).as("Pair").isFalse();
            assertThat(r.view()).isZero();
        });
    }

    @Test
    void shouldNotGiveThePairBackForADifferentToken() {
        Pair pair = primaryWaitingForItsBackup();
        pair.tick(150);
        pair.witnessGrants(151);
        pair.fromPeer(new Message.JoinRequest(0, 0), 160);
        pair.fromPeer(new Message.BatchToken(0, 0, token(1, 7)), 161);
        assertThat(pair.machine.soloHeld()).isTrue();
        assertThat(pair.actions.sent(Message.Commit.class)).isEmpty();
    }

    @Test
    void shouldWaitForTheGrantBeforeReleasingABatchThatStillDiffersAfterSequentialReexecution() {
        Pair pair = primaryWaitingForItsBackup();
        pair.fromPeer(new Message.BatchToken(0, 0, token(1, 2)), 2);
        assertThat(pair.actions.log).containsSubsequence("rollback 0", "execute 1 sequential");
        pair.executed(pair.lastExecuted(), 1, 1);
        pair.fromPeer(new Message.BatchToken(0, 1, token(1, 2)), 3);
        assertThat(pair.actions.log).containsSubsequence("rollback 1", "send 1 Rollback", "transfer 1 since 0");
        assertThat(pair.released())
                .as("the backup never matched it: only with the grant")
                .isZero();
        assertThat(pair.lastFenceRequest().solo()).isTrue();
        pair.witnessGrants(4);
        assertThat(pair.released()).isEqualTo(1);
        assertThat(pair.actions.released.get(0).payload()).containsExactly(1);
    }

    /**
     * docs/primary-backup.md, "A holder that restarts": node 0 held SOLO in view 0 and restarted without its
     * state; its peer, in step in view 0, is refused every takeover while the witness keeps that grant. The
     * joiner gives it back once the peer's heartbeat shows the peer committed at least what the joiner did.
     */
    @Test
    void shouldGiveBackAnEarlierLifesGrantWhenTheInStepPeerWaitsForItAsPrimary() {
        Pair pair = Pair.restarted(FIRST, true, 0);
        pair.fromPeer(new Message.Heartbeat(0, 325), 1);
        assertThat(pair.lastFenceRequest()).satisfies(r -> {
            assertThat(r.solo()).isFalse();
            assertThat(r.view()).isZero();
        });
        // The witness holds it in view 2 (the earlier life took over there): that one goes back too.
        Message.FenceRequest first = pair.lastFenceRequest();
        pair.fromWitness(new Message.FenceAnswer(first.requestId(), 2, true, FIRST), 2);
        assertThat(pair.lastFenceRequest()).satisfies(r -> {
            assertThat(r.solo()).isFalse();
            assertThat(r.view()).isEqualTo(2);
        });
        assertThat(pair.machine.joining())
                .as("still waits for the peer's state")
                .isTrue();
    }

    /**
     * Restarted from its disk with batches its in-step peer never committed (alone, perhaps): the joiner keeps
     * any grant and goes on from its own history, taking over with the witness's grant for a later view of its
     * own, as the longer history does when both join.
     */
    @Test
    void shouldTakeOverWithTheWitnessWhenItsOwnHistoryIsLongerThanTheInStepPeers() {
        Pair fromDisk = Pair.restarted(FIRST, true, 330);
        fromDisk.fromPeer(new Message.Heartbeat(0, 325), 1);
        assertThat(fromDisk.actions.sent(Message.FenceRequest.class))
                .as("batches 326 to 330 may have been committed alone: the peer lacks them")
                .noneMatch(r -> !r.solo());
        assertThat(fromDisk.lastFenceRequest()).satisfies(r -> {
            assertThat(r.solo()).isTrue();
            assertThat(r.view()).isEqualTo(2);
        });
        fromDisk.witnessGrants(2);
        assertThat(fromDisk.machine.joining()).isFalse();
        assertThat(fromDisk.machine.view()).isEqualTo(2);
        assertThat(fromDisk.machine.soloHeld()).isTrue();

        Pair notItsPrimary = Pair.restarted(SECOND, true, 0);
        notItsPrimary.fromPeer(new Message.Heartbeat(0, 325), 1);
        assertThat(notItsPrimary.actions.sent(Message.FenceRequest.class))
                .as("the peer is the primary of view 0: no grant of this node's stands in its way")
                .isEmpty();
    }

    /**
     * With a disk forced on an interval the joiner may have lost batches it acknowledged that its peer executed
     * (and will commit when it takes over): it does not go on from its own history.
     */
    @Test
    void shouldNotTakeOverFromADiskForcedOnAnInterval() {
        Pair fromInterval = Pair.restartedFromAnIntervalSync(FIRST, true, 98);
        fromInterval.fromPeer(new Message.Heartbeat(0, 96), 1);
        assertThat(fromInterval.actions.sent(Message.FenceRequest.class)).isEmpty();
        assertThat(fromInterval.machine.joining()).isTrue();
    }

    @Test
    void shouldNotTakeOverOnAHeartbeatWithoutAWitness() {
        Pair fromDisk = Pair.restarted(FIRST, false, 330);
        fromDisk.fromPeer(new Message.Heartbeat(0, 325), 1);
        assertThat(fromDisk.machine.joining())
                .as("the in-step peer asks the timing fence too, which would grant both")
                .isTrue();
        assertThat(fromDisk.machine.view()).isZero();
    }

    /** Both joining (late-start 345): the peer's longer history goes on, so this node's old grant goes back. */
    @Test
    void shouldGiveBackAnEarlierLifesGrantWhenBothJoinAndThePeersHistoryIsLonger() {
        Pair pair = Pair.restarted(SECOND, true, 0);
        pair.fromPeer(new Message.JoinRequest(1, 238), 1);
        assertThat(pair.lastFenceRequest()).satisfies(r -> assertThat(r.solo()).isFalse());

        Pair longer = Pair.restarted(SECOND, true, 300);
        longer.fromPeer(new Message.JoinRequest(1, 238), 1);
        assertThat(longer.actions.sent(Message.FenceRequest.class))
                .as("this node's history goes on: it keeps what it holds")
                .noneMatch(r -> !r.solo());
    }
}
