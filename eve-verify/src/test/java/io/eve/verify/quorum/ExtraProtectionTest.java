package io.eve.verify.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.execution.Token;
import io.eve.merkle.Digest;
import io.eve.protocol.Message;
import io.eve.protocol.Message.CommitVote;
import io.eve.protocol.Message.Prepare;
import io.eve.protocol.Message.Verify;
import io.eve.protocol.Message.ViewChange;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The extra protection mode (Eve §6.3) of one crash-profile verifier, driven message by message with an
 * explicit clock. The verifier is process 1, which leads view 1, so it can start the view it orders.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ExtraProtectionTest {
    static final long MS = 1_000_000L;
    static final int K = 3;
    static final long WAIT = 10 * MS;
    /** How long the probe waits for its last token: half the crash profile's 500 ms view timeout. */
    static final long PROBE_WAIT = 250 * MS;

    final List<Message> sent = new ArrayList<>();
    long now = MS;

    static Token token(long seq, int state, Token previous) {
        byte[] bytes = new byte[Digest.LENGTH];
        java.util.Arrays.fill(bytes, (byte) state);
        return Token.of(seq, Digest.of(bytes), Digest.ZERO, previous == null ? Digest.ZERO : previous.digest());
    }

    Verifier verifier() {
        return verifier(new ExtraProtectionConfig(true, K, WAIT));
    }

    Verifier verifier(ExtraProtectionConfig protection) {
        QuorumConfig config = QuorumConfig.crash(new int[] {0, 1, 2}, 1).withExtraProtection(protection);
        Verifier verifier = new Verifier(config, (to, m) -> sent.add(m), Evidence.PLAIN, false);
        verifier.start(0);
        return verifier;
    }

    void verify(Verifier verifier, long view, Token token, int... replicas) {
        for (int replica : replicas) {
            verifier.onMessage(replica, new Verify(view, token), now);
        }
    }

    /** Verifier 0 agrees with whatever verifier 1 prepared. */
    void agree(Verifier verifier, long view, Token token) {
        verifier.onMessage(0, new Prepare(view, 0, token), now);
        verifier.onMessage(0, new CommitVote(view, 0, token), now);
    }

    /** Commits {@code count} batches after {@code last} in view 0, every one with all three tokens matching. */
    Token cleanBatches(Verifier verifier, Token last, int count) {
        return cleanBatches(verifier, 0, last, count);
    }

    Token cleanBatches(Verifier verifier, long view, Token last, int count) {
        for (int i = 0; i < count; i++) {
            Token next = token(last.seq() + 1, (int) last.seq() + 1, last);
            verify(verifier, view, next, 0, 1, 2);
            agree(verifier, view, next);
            now += MS;
            last = next;
        }
        assertThat(verifier.committedSeq()).isEqualTo(last.seq());
        return last;
    }

    boolean prepared(Token token) {
        return sent.stream().anyMatch(m -> m instanceof Prepare p && p.token().equals(token));
    }

    /** Verifier 1 has left view 0; verifier 0 joins, and view 1 starts from {@code start}. */
    void startViewOne(Verifier verifier, Token start) {
        verifier.onMessage(0, new ViewChange(1, 0, -1, ViewChanges.ORIGIN, List.of()), now);
        assertThat(verifier.view()).isEqualTo(1);
        assertThat(verifier.committedSeq()).isEqualTo(start.seq());
        verifier.onMessage(0, new Prepare(1, 0, start), now);
    }

    @Test
    void shouldEnterExtraProtectionAfterKBatchesWithAllTokensMatching() {
        Verifier verifier = verifier();
        Token last = cleanBatches(verifier, ViewChanges.ORIGIN, K - 1);
        assertThat(verifier.extraProtection()).isFalse();
        cleanBatches(verifier, last, 1);
        assertThat(verifier.extraProtection()).isTrue();
        assertThat(verifier.extraProtectionEntries()).isEqualTo(1);
    }

    /** A JVM still compiling sends late tokens: during the warm-up no batch counts, clean or not. */
    @Test
    void shouldCountNoBatchTowardsTheModeDuringTheWarmUp() {
        long warmUp = 100 * MS;
        Verifier verifier = verifier(new ExtraProtectionConfig(true, K, WAIT, warmUp));
        long start = now;
        Token last = cleanBatches(verifier, ViewChanges.ORIGIN, 3 * K);
        assertThat(verifier.extraProtection())
                .as("%d clean batches within the warm-up", 3 * K)
                .isFalse();

        now = start + warmUp;
        last = cleanBatches(verifier, last, K - 1);
        assertThat(verifier.extraProtection()).isFalse();
        cleanBatches(verifier, last, 1);
        assertThat(verifier.extraProtection())
                .as("k clean batches after the warm-up")
                .isTrue();
    }

    @Test
    void shouldNotCountABatchWhoseLastTokenCameLate() {
        Verifier verifier = verifier();
        Token last = cleanBatches(verifier, ViewChanges.ORIGIN, K - 1);
        Token late = token(K, K, last);
        verify(verifier, 0, late, 0, 1);
        agree(verifier, 0, late);
        now += WAIT + MS;
        verifier.onTick(now);
        verify(verifier, 0, late, 2);
        cleanBatches(verifier, late, K - 1);
        assertThat(verifier.extraProtection())
                .as("the run restarted after the late batch")
                .isFalse();
        cleanBatches(verifier, verifier.committedToken(), 1);
        assertThat(verifier.extraProtection()).isTrue();
    }

    @Test
    void shouldPrepareOnlyOnceAllTokensMatch() {
        Verifier verifier = verifier();
        Token last = cleanBatches(verifier, ViewChanges.ORIGIN, K);
        Token next = token(K + 1, 7, last);
        verify(verifier, 0, next, 0, 1);
        assertThat(prepared(next))
                .as("the quorum of two is not enough in the mode")
                .isFalse();
        now += WAIT / 2;
        verifier.onTick(now);
        assertThat(prepared(next)).isFalse();
        verify(verifier, 0, next, 2);
        assertThat(prepared(next)).isTrue();
        agree(verifier, 0, next);
        assertThat(verifier.committedSeq()).isEqualTo(K + 1);
        assertThat(verifier.viewChangesStarted()).isZero();
    }

    /**
     * Issue 24: under load one replica runs a few batches behind. Its token for batch K + 2 comes after the wait,
     * but it sent its token for K + 1 within it: it is catching up, not stopped, so the batch waits for it
     * instead of a rollback (which cost the crash profile a view change every few hundred batches).
     */
    @Test
    void shouldWaitForTheLastTokenOfAReplicaThatIsCatchingUp() {
        Verifier verifier = verifier();
        Token last = cleanBatches(verifier, ViewChanges.ORIGIN, K);
        Token first = token(K + 1, 7, last);
        Token second = token(K + 2, 8, first);
        verify(verifier, 0, first, 0, 1);
        verify(verifier, 0, second, 0, 1);
        now += WAIT / 2;
        verifier.onTick(now);
        verify(verifier, 0, first, 2);
        assertThat(prepared(first)).isTrue();
        agree(verifier, 0, first);
        now += WAIT / 2 + 2 * MS; // second's quorum came more than the wait ago; replica 2's last token, less
        verifier.onTick(now);
        assertThat(verifier.viewChangesStarted())
                .as("replica 2 sent a newer token within the wait")
                .isZero();
        assertThat(prepared(second)).isFalse();
        verify(verifier, 0, second, 2);
        assertThat(prepared(second)).isTrue();
        assertThat(verifier.extraProtectionRollbacks()).isZero();
        assertThat(verifier.extraProtection()).isTrue();
    }

    /** A replica that sends nothing newer within the wait is not catching up: the batch rolls back as before. */
    @Test
    void shouldStillRollBackWhenTheReplicaWithTheMissingTokenStoppedSendingNewerOnes() {
        Verifier verifier = verifier();
        Token last = cleanBatches(verifier, ViewChanges.ORIGIN, K);
        Token first = token(K + 1, 7, last);
        verify(verifier, 0, first, 0, 1);
        now += WAIT + MS;
        verifier.onTick(now);
        assertThat(verifier.extraProtectionRollbacks()).isEqualTo(1);
        assertThat(prepared(first)).isFalse();
        assertThat(verifier.lastViewChangeReason())
                .isEqualTo("extra protection: batch " + (K + 1) + ": 1 of 3 tokens still missing (those of replicas"
                        + " [0, 1] came), 11 ms after the quorum (the wait is 10 ms)");
    }

    @Test
    void shouldOrderARollbackWhenTwoTokensMatchAndOneDiffers() {
        Verifier verifier = verifier();
        Token last = cleanBatches(verifier, ViewChanges.ORIGIN, K);
        Token wrong = token(K + 1, 66, last);
        Token right = token(K + 1, 7, last);
        verify(verifier, 0, wrong, 0, 1);
        verify(verifier, 0, right, 2);
        assertThat(prepared(wrong))
                .as("two matching tokens would commit outside the mode")
                .isFalse();
        assertThat(verifier.extraProtectionRollbacks()).isEqualTo(1);
        assertThat(sent).anyMatch(m -> m instanceof ViewChange change && change.newView() == 1);
        assertThat(verifier.changingView()).isTrue();
        assertThat(verifier.lastViewChangeReason())
                .as("a bug (a token that differs), told apart from a slow replica")
                .isEqualTo(
                        "extra protection: batch " + (K + 1)
                                + ": the token of replica 2 differs from the quorum's, 0 ms after the quorum (the wait is 10 ms)");
    }

    @Test
    void shouldStayInExtraProtectionAfterACleanSequentialReExecution() {
        Verifier verifier = verifier();
        Token last = cleanBatches(verifier, ViewChanges.ORIGIN, K);
        verify(verifier, 0, token(K + 1, 66, last), 0, 1);
        verify(verifier, 0, token(K + 1, 7, last), 2);
        startViewOne(verifier, last);
        Token sequential = token(K + 1, 7, last);
        verify(verifier, 1, sequential, 0, 1, 2);
        assertThat(prepared(sequential)).isTrue();
        agree(verifier, 1, sequential);
        assertThat(verifier.committedSeq()).isEqualTo(K + 1);
        assertThat(verifier.extraProtection()).isTrue();
        assertThat(verifier.extraProtectionExits()).isZero();
    }

    @Test
    void shouldWaitTwiceAsLongAfterARollbackThatALateTokenCaused() {
        Verifier verifier = verifier();
        Token last = cleanBatches(verifier, ViewChanges.ORIGIN, K);
        verify(verifier, 0, token(K + 1, 7, last), 0, 1);
        now += WAIT + MS;
        verifier.onTick(now);
        assertThat(verifier.extraProtectionRollbacks()).isEqualTo(1);
        startViewOne(verifier, last);
        Token sequential = token(K + 1, 7, last);
        verify(verifier, 1, sequential, 0, 1, 2);
        agree(verifier, 1, sequential);
        assertThat(verifier.extraProtection()).isTrue();

        Token slow = token(K + 2, 8, sequential);
        verify(verifier, 1, slow, 0, 1);
        now += WAIT + MS;
        verifier.onTick(now);
        assertThat(verifier.extraProtectionRollbacks())
                .as("the wait is now 2 x %d ms", WAIT / MS)
                .isEqualTo(1);
        verify(verifier, 1, slow, 2);
        assertThat(prepared(slow)).isTrue();
    }

    /**
     * A rare long lateness (a force stalled behind a checkpoint, a collector pause) comes back at about the same
     * length; the mean and deviation forget it within a few dozen batches, so the wait keeps twice the longest
     * lateness seen lately, and forgets it only as it ages (half per minute).
     */
    @Test
    void shouldWaitTwiceTheLongestLatenessSeenLatelyUntilItAges() {
        Verifier verifier = verifier();
        Token last = cleanBatches(verifier, ViewChanges.ORIGIN, K);
        assertThat(verifier.extraProtection()).isTrue();
        Token slowOnce = quorumThenWait(verifier, last, 7, 8 * MS); // within the 10 ms wait
        verify(verifier, 0, slowOnce, 2);
        agree(verifier, 0, slowOnce);
        last = cleanBatches(verifier, slowOnce, 100); // the mean and deviation forget the 8 ms

        Token late = quorumThenWait(verifier, last, 9, 14 * MS);
        assertThat(verifier.extraProtectionRollbacks())
                .as("14 ms late, after an 8 ms lateness 100 batches ago")
                .isZero();
        verify(verifier, 0, late, 2);
        assertThat(prepared(late)).isTrue();
        agree(verifier, 0, late);

        now += 300_000 * MS; // five half-lives: 14 ms counts as 0.4 ms
        last = cleanBatches(verifier, late, 1);
        Token lateAgain = quorumThenWait(verifier, last, 10, 14 * MS);
        assertThat(verifier.extraProtectionRollbacks())
                .as("the same lateness five minutes on")
                .isEqualTo(1);
        assertThat(prepared(lateAgain)).isFalse();
    }

    /** The batch after {@code last} gets the tokens of replicas 0 and 1 in view 0; then {@code wait} passes. */
    Token quorumThenWait(Verifier verifier, Token last, int state, long wait) {
        Token next = token(last.seq() + 1, state, last);
        verify(verifier, 0, next, 0, 1);
        now += wait;
        verifier.onTick(now);
        return next;
    }

    /** Issue 24: verifiers that only followed a rollback took turns ordering their own for the same lateness. */
    @Test
    void shouldAlsoWaitLongerAfterARollbackAnotherVerifierOrdered() {
        Verifier verifier = verifier();
        Token last = cleanBatches(verifier, ViewChanges.ORIGIN, K);
        assertThat(verifier.extraProtection()).isTrue();
        startViewOne(verifier, last); // verifier 0 ordered it; this one follows
        assertThat(verifier.extraProtectionRollbacks()).isZero();
        Token sequential = token(K + 1, 7, last);
        verify(verifier, 1, sequential, 0, 1, 2);
        agree(verifier, 1, sequential);

        Token slow = token(K + 2, 8, sequential);
        verify(verifier, 1, slow, 0, 1);
        now += WAIT + MS;
        verifier.onTick(now);
        assertThat(verifier.extraProtectionRollbacks())
                .as("the wait is now 2 x %d ms here too", WAIT / MS)
                .isZero();
        verify(verifier, 1, slow, 2);
        assertThat(prepared(slow)).isTrue();
        assertThat(verifier.viewChangesStarted()).isEqualTo(1);
    }

    @Test
    void shouldLeaveExtraProtectionWhenAReplicaIsSilentSoThatBatchesStillCommit() {
        Verifier verifier = verifier();
        Token last = cleanBatches(verifier, ViewChanges.ORIGIN, K);
        Token next = token(K + 1, 7, last);
        verify(verifier, 0, next, 0, 1); // replica 2 crashed
        now += WAIT + MS;
        verifier.onTick(now);
        assertThat(verifier.extraProtectionRollbacks()).isEqualTo(1);
        startViewOne(verifier, last);
        verify(verifier, 1, next, 0, 1);
        assertThat(prepared(next)).isFalse();
        now += 2 * WAIT + MS;
        verifier.onTick(now);
        assertThat(prepared(next))
                .as("the probe waits longer than a batch (a replica may be only paused)")
                .isFalse();
        assertThat(verifier.extraProtection()).isTrue();
        now += PROBE_WAIT - 2 * WAIT;
        verifier.onTick(now);
        assertThat(verifier.extraProtection())
                .as("the sequential re-execution did not bring all three in half the view timeout")
                .isFalse();
        assertThat(verifier.extraProtectionExits()).isEqualTo(1);
        assertThat(prepared(next)).as("the normal quorum carries on").isTrue();
        agree(verifier, 1, next);
        assertThat(verifier.committedSeq()).isEqualTo(K + 1);
        Token after = token(K + 2, 8, next);
        verify(verifier, 1, after, 0, 1);
        assertThat(prepared(after)).isTrue();
        assertThat(verifier.viewChangesStarted()).isEqualTo(1);
        agree(verifier, 1, after);
        // Replica 2 is back from the next batch on.

        Token run = cleanBatches(verifier, 1, after, 2 * K - 1);
        assertThat(verifier.extraProtection())
                .as("after leaving, entering takes 2k clean batches")
                .isFalse();
        cleanBatches(verifier, 1, run, 1);
        assertThat(verifier.extraProtection()).isTrue();
    }

    /** Issue 21: a replica paused longer than the wait at the probe ended the mode, and a later bug committed. */
    @Test
    void shouldStayInExtraProtectionWhenTheProbesLastTokenIsLateButWithinHalfTheViewTimeout() {
        Verifier verifier = verifier();
        Token last = cleanBatches(verifier, ViewChanges.ORIGIN, K);
        verify(verifier, 0, token(K + 1, 7, last), 0, 1);
        now += WAIT + MS;
        verifier.onTick(now);
        startViewOne(verifier, last);
        Token sequential = token(K + 1, 7, last);
        verify(verifier, 1, sequential, 0, 1);
        now += 10 * WAIT;
        verifier.onTick(now);
        assertThat(prepared(sequential)).isFalse();
        verify(verifier, 1, sequential, 2);
        assertThat(prepared(sequential)).isTrue();
        assertThat(verifier.extraProtection()).isTrue();
        assertThat(verifier.extraProtectionExits()).isZero();

        agree(verifier, 1, sequential);
        Token wrong = token(K + 2, 66, sequential);
        verify(verifier, 1, wrong, 0, 1);
        verify(verifier, 1, token(K + 2, 8, sequential), 2);
        assertThat(prepared(wrong))
                .as("a bug on two replicas after the pause is still masked")
                .isFalse();
        assertThat(verifier.extraProtectionRollbacks()).isEqualTo(2);
    }

    @Test
    void shouldLeaveExtraProtectionAtOnceWhenTheSequentialReExecutionStillDiffers() {
        Verifier verifier = verifier();
        Token last = cleanBatches(verifier, ViewChanges.ORIGIN, K);
        verify(verifier, 0, token(K + 1, 66, last), 0, 1);
        verify(verifier, 0, token(K + 1, 7, last), 2);
        startViewOne(verifier, last);
        Token sequential = token(K + 1, 66, last);
        verify(verifier, 1, sequential, 0, 1);
        verify(verifier, 1, token(K + 1, 7, last), 2);
        assertThat(verifier.extraProtection())
                .as("a replica that computes wrongly is not a concurrency bug")
                .isFalse();
        assertThat(prepared(sequential)).as("the normal quorum carries on").isTrue();
    }

    @Test
    void shouldRefuseTheModeWithCommissionFaults() {
        assertThatThrownBy(() ->
                        QuorumConfig.bft(new int[] {0, 1, 2, 3}, 0).withExtraProtection(ExtraProtectionConfig.DEFAULT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("r = 0, got r = 1");
        assertThatThrownBy(() -> new ExtraProtectionConfig(true, 0, WAIT))
                .hasMessageContaining("afterBatches must be at least 1, got 0");
    }
}
