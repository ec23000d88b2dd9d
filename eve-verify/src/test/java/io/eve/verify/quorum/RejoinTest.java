package io.eve.verify.quorum;

import static io.eve.verify.quorum.VerifierTest.MS;
import static io.eve.verify.quorum.VerifierTest.token;
import static org.assertj.core.api.Assertions.assertThat;

import io.eve.execution.Token;
import io.eve.protocol.Message;
import io.eve.protocol.Message.CommitVote;
import io.eve.protocol.Message.JoinQuery;
import io.eve.protocol.Message.JoinState;
import io.eve.protocol.Message.NewView;
import io.eve.protocol.Message.Prepare;
import io.eve.protocol.Message.Verify;
import io.eve.protocol.Message.ViewChange;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The join handlers of the {@link Verifier} (docs/quorum.md, "Rejoining"), bft profile: 4 verifiers. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class RejoinTest {
    static final long NONCE = 41;
    private static final int JOINER = 3;

    record Sent(int to, Message message) {}

    private final List<Sent> sent = new ArrayList<>();
    private final Token first = token(1, 1, null);
    private final Token second = token(2, 2, first);
    private final Token third = token(3, 3, second);
    private final Token fourth = token(4, 4, third);

    /**
     * Agreement depth 1 (one batch at a time), for which the bounds read "adopted batch + 2"; with depth
     * {@code D} they are "+ 2D" (docs/quorum.md, "Pipelined agreement"), which {@link
     * #shouldNotPrepareUpToTwiceTheAgreementDepthPastTheAdoptedBatch} checks.
     */
    private Verifier verifier(int self, boolean recovering) {
        return verifier(self, recovering, 1);
    }

    private Verifier verifier(int self, boolean recovering, int depth) {
        return started(
                QuorumConfig.bft(new int[] {0, 1, 2, 3}, self)
                        .withBatching(depth, 64, 2_000_000L)
                        .withPipelinedAgreement(true),
                sent,
                recovering);
    }

    /** A verifier of {@code config}, started at time 0 with join nonce {@link #NONCE}, sending into {@code sent}. */
    static Verifier started(QuorumConfig config, List<Sent> sent, boolean recovering) {
        Verifier verifier =
                new Verifier(config, (to, m) -> sent.add(new Sent(to, m)), Evidence.PLAIN, recovering, NONCE);
        verifier.start(0);
        return verifier;
    }

    private <T extends Message> List<T> sentOf(Class<T> type) {
        return sent.stream()
                .map(Sent::message)
                .filter(type::isInstance)
                .map(type::cast)
                .toList();
    }

    private static List<Message> commitVotes(long view, Token token, int... verifiers) {
        List<Message> votes = new ArrayList<>();
        for (int verifier : verifiers) {
            votes.add(new CommitVote(view, verifier, token));
        }
        return votes;
    }

    private static JoinState committed(int from, Token token) {
        return new JoinState(from, NONCE, 0, false, 0, token, commitVotes(0, token, 0, 1, 2));
    }

    /** A joiner that adopted view 0 at batch 1 from the answers of verifiers 0, 1 and 2. */
    private Verifier rejoined() {
        Verifier joiner = verifier(JOINER, true);
        joiner.onMessage(0, committed(0, first), MS);
        joiner.onMessage(1, committed(1, first), MS);
        joiner.onMessage(2, committed(2, first), MS);
        assertThat(joiner.recovering()).isFalse();
        sent.clear();
        return joiner;
    }

    /** Verifiers 0, 1 and 2 prepare and commit {@code token}; the execution replicas 0 and 1 verify it. */
    private static void agree(Verifier verifier, Token token, long now) {
        verifier.onMessage(0, new Verify(0, token), now);
        verifier.onMessage(1, new Verify(0, token), now);
        for (int other = 0; other < 3; other++) {
            verifier.onMessage(other, new Prepare(0, other, token), now);
        }
        for (int other = 0; other < 3; other++) {
            verifier.onMessage(other, new CommitVote(0, other, token), now);
        }
    }

    @Test
    void shouldAskTheOtherVerifiersWhereTheyAreWhenItStarts() {
        verifier(JOINER, true);
        assertThat(sent).extracting(Sent::to).containsExactly(0, 1, 2);
        assertThat(sentOf(JoinQuery.class)).containsOnly(new JoinQuery(JOINER, NONCE));
    }

    @Test
    void shouldAnswerAJoinQueryWithItsViewAndTheProofOfItsLastCommit() {
        Verifier verifier = verifier(0, false);
        verifier.onMessage(JOINER, new JoinQuery(JOINER, 7), MS);
        assertThat(sentOf(JoinState.class))
                .containsExactly(new JoinState(0, 7, 0, false, -1, ViewChanges.ORIGIN, List.of()));
        sent.clear();
        agree(verifier, first, 2 * MS);
        verifier.onMessage(JOINER, new JoinQuery(JOINER, 7), 3 * MS);
        JoinState state = sentOf(JoinState.class).get(0);
        assertThat(state.committed()).isEqualTo(first);
        assertThat(state.certificateView()).isZero();
        assertThat(state.evidence()).hasSize(3).allMatch(CommitVote.class::isInstance);
    }

    @Test
    void shouldTellARestartedExecutionReplicaTheHighestViewItReached() {
        Verifier verifier = verifier(0, false);
        verifier.onMessage(2, new Message.ViewQuery(2, 11), MS);
        assertThat(sent).containsExactly(new Sent(2, new Message.ViewReport(0, 11, 0)));
        sent.clear();
        // bft: r + 1 = 2 execution replicas suspect the primary, and the verifier leaves for view 1.
        verifier.onMessage(1, new Message.Suspect(0), 2 * MS);
        verifier.onMessage(2, new Message.Suspect(0), 2 * MS);
        sent.clear();
        verifier.onMessage(2, new Message.ViewQuery(2, 12), 3 * MS);
        assertThat(sentOf(Message.ViewReport.class))
                .as("the view it is leaving for counts: a new primary may lead it once a quorum left")
                .containsExactly(new Message.ViewReport(0, 12, 1));
        sent.clear();
        verifier.onMessage(3, new Message.ViewQuery(3, 13), 4 * MS);
        verifier.onMessage(1, new Message.ViewQuery(2, 13), 4 * MS);
        assertThat(sent)
                .as("verifier 3 hosts no execution replica; 1 names another sender")
                .isEmpty();

        Verifier joiner = verifier(JOINER, true);
        sent.clear();
        joiner.onMessage(1, new Message.ViewQuery(1, 14), MS);
        assertThat(sent).as("rejoining, it does not know where the views are").isEmpty();
    }

    @Test
    void shouldRejoinTheOthersViewOnceEveryOtherVerifierAnswered() {
        Verifier joiner = verifier(JOINER, true);
        joiner.onMessage(0, committed(0, first), MS);
        joiner.onMessage(1, committed(1, second), MS);
        assertThat(joiner.recovering()).as("verifier 2 has not answered").isTrue();
        joiner.onMessage(2, committed(2, first), MS);
        assertThat(joiner.recovering()).isFalse();
        assertThat(joiner.view()).isZero();
        assertThat(joiner.committedSeq()).as("the highest proven commit").isEqualTo(2);
        assertThat(joiner.committedToken()).isEqualTo(second);
        assertThat(joiner.viewChangesStarted()).isZero();
    }

    @Test
    void shouldRejoinAnIdleClusterInViewZeroAtTheInitialState() {
        Verifier joiner = verifier(JOINER, true);
        for (int other = 0; other < 3; other++) {
            joiner.onMessage(other, new JoinState(other, NONCE, 0, false, -1, ViewChanges.ORIGIN, List.of()), MS);
        }
        assertThat(joiner.recovering()).isFalse();
        assertThat(joiner.committedSeq()).isZero();
    }

    @Test
    void shouldNotAdoptACommitThatOneByzantineVerifierClaimsAlone() {
        Verifier joiner = verifier(JOINER, true);
        joiner.onMessage(0, committed(0, first), MS);
        joiner.onMessage(1, committed(1, first), MS);
        // Verifier 2 claims batch 4 with its own vote three times, then with Prepares instead of CommitVotes.
        joiner.onMessage(2, new JoinState(2, NONCE, 0, false, 0, fourth, commitVotes(0, fourth, 2, 2, 2)), MS);
        assertThat(joiner.recovering()).isTrue();
        List<Message> prepares =
                List.of(new Prepare(0, 0, fourth), new Prepare(0, 1, fourth), new Prepare(0, 2, fourth));
        joiner.onMessage(2, new JoinState(2, NONCE, 0, false, 0, fourth, prepares), MS);
        assertThat(joiner.recovering())
                .as("a prepared token is not proven committed")
                .isTrue();
        joiner.onMessage(2, committed(2, first), MS);
        assertThat(joiner.recovering()).isFalse();
        assertThat(joiner.committedSeq()).isEqualTo(1);
    }

    @Test
    void shouldNotRejoinWhenTheAnswersDisagreeOnTheViewOrOneIsLeavingIt() {
        Verifier joiner = verifier(JOINER, true);
        joiner.onMessage(0, committed(0, first), MS);
        joiner.onMessage(1, committed(1, first), MS);
        joiner.onMessage(2, new JoinState(2, NONCE, 5, false, 5, first, commitVotes(5, first, 0, 1, 2)), MS);
        assertThat(joiner.recovering()).as("a view no other verifier reports").isTrue();
        joiner.onMessage(2, new JoinState(2, NONCE, 0, true, 0, first, commitVotes(0, first, 0, 1, 2)), MS);
        assertThat(joiner.recovering()).as("verifier 2 leaves view 0").isTrue();
        joiner.onMessage(2, committed(2, first), MS);
        assertThat(joiner.recovering()).isFalse();
    }

    @Test
    void shouldIgnoreAnswersToTheQueryOfAnEarlierIncarnation() {
        Verifier joiner = verifier(JOINER, true);
        for (int other = 0; other < 3; other++) {
            joiner.onMessage(
                    other, new JoinState(other, NONCE + 1, 0, false, 0, first, commitVotes(0, first, 0, 1, 2)), MS);
        }
        assertThat(joiner.recovering()).isTrue();
    }

    @Test
    void shouldNotPrepareTheBatchesItMayHaveVotedOnBeforeItsRestart() {
        Verifier joiner = rejoined();
        for (Token token : List.of(second, third)) {
            agree(joiner, token, 2 * MS);
        }
        assertThat(joiner.committedSeq())
                .as("it counts the others' votes and commits")
                .isEqualTo(3);
        assertThat(sentOf(Prepare.class)).as("batches 2 and 3: committed 1 + 2").isEmpty();
        assertThat(sentOf(CommitVote.class)).isNotEmpty();
        joiner.onMessage(0, new Verify(0, fourth), 3 * MS);
        joiner.onMessage(1, new Verify(0, fourth), 3 * MS);
        assertThat(sentOf(Prepare.class)).contains(new Prepare(0, JOINER, fourth));
    }

    @Test
    void shouldNotPrepareUpToTwiceTheAgreementDepthPastTheAdoptedBatch() {
        Verifier joiner = verifier(JOINER, true, 2);
        joiner.onMessage(0, committed(0, first), MS);
        joiner.onMessage(1, committed(1, first), MS);
        joiner.onMessage(2, committed(2, first), MS);
        assertThat(joiner.recovering()).isFalse();
        sent.clear();
        Token fifth = token(5, 5, fourth);
        Token sixth = token(6, 6, fifth);
        for (Token token : List.of(second, third, fourth, fifth)) {
            agree(joiner, token, 2 * MS);
        }
        assertThat(joiner.committedSeq()).isEqualTo(5);
        assertThat(sentOf(Prepare.class))
                .as("batches 2 to 5: committed 1 + 2D, D = 2")
                .isEmpty();
        joiner.onMessage(0, new Verify(0, sixth), 3 * MS);
        joiner.onMessage(1, new Verify(0, sixth), 3 * MS);
        assertThat(sentOf(Prepare.class)).contains(new Prepare(0, JOINER, sixth));
    }

    @Test
    void shouldReportNoCertificateInAViewChangeUntilItHoldsOneOfALaterView() {
        Verifier joiner = rejoined();
        agree(joiner, second, 2 * MS);
        joiner.onMessage(0, new ViewChange(1, 0, -1, ViewChanges.ORIGIN, List.of()), 3 * MS);
        joiner.onMessage(1, new ViewChange(1, 1, -1, ViewChanges.ORIGIN, List.of()), 3 * MS);
        assertThat(joiner.changingView()).as("it follows r + 1 verifiers").isTrue();
        assertThat(sentOf(ViewChange.class))
                .isNotEmpty()
                .allMatch(change -> ViewChanges.isRecovering(change) && change.newView() == 1);
    }

    @Test
    void shouldNotCountAViewChangeOfAJoinerThatMayPredateItsRestart() {
        Verifier verifier = verifier(0, false);
        agree(verifier, first, MS);
        verifier.onMessage(JOINER, new JoinQuery(JOINER, 7), 2 * MS);
        long ignored = verifier.ignored();
        List<Message> proof = commitVotes(0, first, 0, 1, 2);
        verifier.onMessage(JOINER, new ViewChange(1, JOINER, 0, first, proof), 3 * MS);
        verifier.onMessage(JOINER, new ViewChange(1, JOINER, -1, ViewChanges.ORIGIN, List.of()), 3 * MS);
        assertThat(verifier.ignored()).isEqualTo(ignored + 2);
        verifier.onMessage(1, new ViewChange(1, 1, 0, first, proof), 3 * MS);
        assertThat(verifier.changingView())
                .as("the joiner's view change did not count towards r + 1")
                .isFalse();
    }

    @Test
    void shouldTellTheOthersWhatItAdopted() {
        Verifier joiner = verifier(JOINER, true);
        joiner.onMessage(0, committed(0, first), MS);
        joiner.onMessage(1, committed(1, first), MS);
        joiner.onMessage(2, committed(2, first), MS);
        assertThat(sentOf(JoinState.class))
                .hasSize(3)
                .allMatch(state -> state.verifier() == JOINER
                        && state.nonce() == NONCE
                        && state.view() == 0
                        && !state.changing()
                        && state.committed().equals(first));
    }

    /**
     * Rule R as the status reports it: a verifier that rejoined counts towards view changes only once it holds a
     * certificate from the adopted batch + 2 on; before, restarting another process could leave a view change
     * one verifier short.
     */
    @Test
    void shouldCountTowardsViewChangesOnlyOnceItHoldsACertificateCoveringItsEarlierLife() {
        assertThat(verifier(0, false).countsInViewChanges())
                .as("started with the cluster")
                .isTrue();
        Verifier recovering = verifier(JOINER, true);
        assertThat(recovering.countsInViewChanges()).as("still recovering").isFalse();
        Verifier joiner = rejoined();
        assertThat(joiner.countsInViewChanges())
                .as("adopted batch 1, holds no certificate of batch 3")
                .isFalse();
        agree(joiner, second, 2 * MS);
        assertThat(joiner.countsInViewChanges()).isFalse();
        agree(joiner, third, 3 * MS);
        assertThat(joiner.countsInViewChanges())
                .as("prepared for batch 3 = 1 + 2")
                .isTrue();
    }

    @Test
    void shouldReportItsCertificateOnceItIsFromTheAdoptedBatchPlusTwo() {
        Verifier joiner = rejoined();
        agree(joiner, second, 2 * MS);
        agree(joiner, third, 2 * MS);
        joiner.onMessage(0, new ViewChange(1, 0, -1, ViewChanges.ORIGIN, List.of()), 3 * MS);
        joiner.onMessage(1, new ViewChange(1, 1, -1, ViewChanges.ORIGIN, List.of()), 3 * MS);
        assertThat(sentOf(ViewChange.class))
                .isNotEmpty()
                .allMatch(change ->
                        change.certificateView() == 0 && change.certificate().equals(third) && change.newView() == 1);
    }

    @Test
    void shouldCountAJoinersViewChangeFromTheBatchItAdoptedPlusTwo() {
        Verifier verifier = verifier(0, false);
        agree(verifier, first, MS);
        verifier.onMessage(JOINER, new JoinQuery(JOINER, 7), 2 * MS);
        verifier.onMessage(
                JOINER, new JoinState(JOINER, 8, 0, false, 0, first, commitVotes(0, first, 0, 1, 2)), 2 * MS);
        long ignored = verifier.ignored();
        verifier.onMessage(JOINER, new ViewChange(1, JOINER, 0, third, commitVotes(0, third, 0, 1, 2)), 3 * MS);
        assertThat(verifier.ignored())
                .as("an announcement of another incarnation lifts nothing")
                .isEqualTo(ignored + 1);
        verifier.onMessage(
                JOINER, new JoinState(JOINER, 7, 0, false, 0, first, commitVotes(0, first, 0, 1, 2)), 4 * MS);
        verifier.onMessage(JOINER, new ViewChange(1, JOINER, 0, second, commitVotes(0, second, 0, 1, 2)), 5 * MS);
        assertThat(verifier.ignored())
                .as("batch 2 = adopted + 1: it may have been prepared for it before its restart")
                .isEqualTo(ignored + 2);
        verifier.onMessage(JOINER, new ViewChange(1, JOINER, 0, third, commitVotes(0, third, 0, 1, 2)), 5 * MS);
        assertThat(verifier.ignored()).isEqualTo(ignored + 2);
        verifier.onMessage(1, new ViewChange(1, 1, 0, first, commitVotes(0, first, 0, 1, 2)), 6 * MS);
        assertThat(verifier.changingView())
                .as("the joiner's view change counts towards r + 1")
                .isTrue();
    }

    // ---- counting again without a rejoin (docs/quorum.md, "Counting again without a rejoin") ----------

    /** Verifier {@code from}'s answer: in {@code view}, not leaving it, nothing committed there. */
    private static JoinState inView(int from, long view) {
        return new JoinState(from, NONCE, view, false, -1, ViewChanges.ORIGIN, List.of());
    }

    private static List<Message> viewChanges(long view, int... verifiers) {
        List<Message> changes = new ArrayList<>();
        for (int verifier : verifiers) {
            changes.add(new ViewChange(view, verifier, -1, ViewChanges.ORIGIN, List.of()));
        }
        return changes;
    }

    private static NewView newView(long view, int... verifiers) {
        return new NewView(view, (int) (view % 4), viewChanges(view, verifiers), ViewChanges.ORIGIN);
    }

    private static JoinState tookNoPartBelow(long nonce, long view) {
        return new JoinState(JOINER, nonce, view, false, ViewChanges.RECOVERING, ViewChanges.ORIGIN, List.of());
    }

    @Test
    void shouldEnterByANewViewOnlyAViewAboveEveryViewItsEarlierLifeMayHaveEntered() {
        Verifier joiner = verifier(JOINER, true);
        joiner.onMessage(0, inView(0, 1), MS);
        joiner.onMessage(1, inView(1, 1), MS);
        joiner.onMessage(2, newView(2, 0, 1, 2), MS);
        assertThat(joiner.recovering())
                .as("two answers: a view that three verifiers reached may be unknown to both")
                .isTrue();
        joiner.onMessage(2, new JoinState(2, NONCE, 1, false, -1, ViewChanges.ORIGIN, List.of()), MS);
        assertThat(joiner.recovering())
                .as("view 1 without a commit proof: no rejoin")
                .isTrue();
        joiner.onMessage(1, newView(1, 0, 1, 2), 2 * MS);
        assertThat(joiner.recovering())
                .as("its earlier life may have voted in view 1, which every answer had reached")
                .isTrue();
        sent.clear();
        joiner.onMessage(2, newView(2, 0, 1, 2), 3 * MS);
        assertThat(joiner.recovering()).isFalse();
        assertThat(joiner.view()).isEqualTo(2);
        assertThat(sentOf(JoinState.class))
                .as("it tells the others it takes part in no view below 2")
                .containsOnly(tookNoPartBelow(NONCE, 2));

        sent.clear();
        joiner.onMessage(0, new ViewChange(3, 0, -1, ViewChanges.ORIGIN, List.of()), 4 * MS);
        joiner.onMessage(1, new ViewChange(3, 1, -1, ViewChanges.ORIGIN, List.of()), 4 * MS);
        assertThat(sentOf(ViewChange.class))
                .as("until it holds a certificate of view 2, its view changes do not count (rule R)")
                .isNotEmpty()
                .allMatch(change -> ViewChanges.isRecovering(change) && change.newView() == 3);
    }

    @Test
    void shouldReportTheHighestCertificateOfTheOthersViewChangesForAViewAboveItsEarlierViews() {
        Verifier joiner = verifier(JOINER, true);
        for (int other = 0; other < 3; other++) {
            joiner.onMessage(other, inView(other, 1), MS);
        }
        List<Message> secondInView1 =
                List.of(new Prepare(1, 0, second), new Prepare(1, 1, second), new Prepare(1, 2, second));
        List<Message> firstInView0 = commitVotes(0, first, 0, 1, 2);
        sent.clear();
        for (int other = 0; other < 3; other++) {
            joiner.onMessage(other, new ViewChange(1, other, 0, first, firstInView0), 2 * MS);
        }
        assertThat(sentOf(ViewChange.class))
                .as("view 1 is not above the views its earlier life may have entered")
                .isEmpty();
        joiner.onMessage(0, new ViewChange(2, 0, 1, second, secondInView1), 3 * MS);
        joiner.onMessage(1, new ViewChange(3, 1, 0, first, firstInView0), 3 * MS);
        assertThat(sentOf(ViewChange.class)).as("two senders of nV - u = 3").isEmpty();
        // Verifier 2 is Byzantine: its certificate is its own Prepare three times. It still takes one of the
        // r places the intersection allows, so its view change completes the three.
        List<Message> forged = List.of(new Prepare(1, 2, fourth), new Prepare(1, 2, fourth), new Prepare(1, 2, fourth));
        joiner.onMessage(2, new ViewChange(2, 2, 1, fourth, forged), 4 * MS);
        assertThat(sentOf(JoinState.class)).containsOnly(tookNoPartBelow(NONCE, 2));
        assertThat(sentOf(ViewChange.class))
                .as("the highest valid certificate of the three, for the lowest view all three left for")
                .containsOnly(new ViewChange(2, JOINER, 1, second, secondInView1));
        assertThat(sent.indexOf(new Sent(0, tookNoPartBelow(NONCE, 2))))
                .as("the announcement goes first, so that the view change counts when it arrives")
                .isLessThan(sent.indexOf(new Sent(0, new ViewChange(2, JOINER, 1, second, secondInView1))));
        assertThat(joiner.recovering()).isTrue();

        joiner.onMessage(1, newView(1, 0, 1, 2), 5 * MS);
        assertThat(joiner.recovering()).as("below the view it reported for").isTrue();
    }

    @Test
    void shouldCountAViewChangeOfARestartedVerifierUpToTheViewBelowWhichItTookNoPart() {
        Verifier verifier = verifier(0, false);
        agree(verifier, first, MS);
        verifier.onMessage(JOINER, new JoinQuery(JOINER, 7), 2 * MS);
        List<Message> proof = commitVotes(0, first, 0, 1, 2);
        long ignored = verifier.ignored();
        verifier.onMessage(JOINER, new ViewChange(1, JOINER, 0, first, proof), 3 * MS);
        verifier.onMessage(JOINER, tookNoPartBelow(8, 1), 3 * MS);
        verifier.onMessage(JOINER, new ViewChange(1, JOINER, 0, first, proof), 3 * MS);
        assertThat(verifier.ignored())
                .as("answered in view 0, and another incarnation's announcement lifts nothing")
                .isEqualTo(ignored + 2);
        verifier.onMessage(JOINER, tookNoPartBelow(7, 1), 4 * MS);
        verifier.onMessage(JOINER, new JoinQuery(JOINER, 7), 4 * MS);
        verifier.onMessage(JOINER, new ViewChange(2, JOINER, 0, first, proof), 5 * MS);
        assertThat(verifier.ignored())
                .as("for view 2 only a certificate of view 1 or later: an earlier life may have sent this one")
                .isEqualTo(ignored + 3);
        verifier.onMessage(JOINER, new ViewChange(1, JOINER, 0, first, proof), 5 * MS);
        assertThat(verifier.ignored())
                .as("for view 1 it counts, even after a query that was still on its way")
                .isEqualTo(ignored + 3);
        verifier.onMessage(1, new ViewChange(1, 1, 0, first, proof), 6 * MS);
        assertThat(verifier.changingView())
                .as("the joiner's view change counted towards r + 1")
                .isTrue();
    }

    @Test
    void shouldNotReportForAViewThatAlreadyStartedFromTheOthersViewChanges() {
        Verifier joiner = verifier(JOINER, true);
        for (int other = 0; other < 3; other++) {
            joiner.onMessage(other, inView(other, 1), MS);
        }
        sent.clear();
        // Verifier 0 was prepared in view 2 already (its certificate is of view 2): view 2 started, and a
        // certificate of view 2 is no report for view 2 (the others would refuse it).
        List<Message> secondInView2 =
                List.of(new Prepare(2, 0, second), new Prepare(2, 1, second), new Prepare(2, 2, second));
        joiner.onMessage(0, new ViewChange(3, 0, 2, second, secondInView2), 2 * MS);
        joiner.onMessage(1, new ViewChange(2, 1, 0, first, commitVotes(0, first, 0, 1, 2)), 2 * MS);
        joiner.onMessage(2, new ViewChange(2, 2, 0, first, commitVotes(0, first, 0, 1, 2)), 2 * MS);
        assertThat(sentOf(ViewChange.class)).isEmpty();
        assertThat(sentOf(JoinState.class)).isEmpty();
        joiner.onMessage(1, new ViewChange(3, 1, 0, first, commitVotes(0, first, 0, 1, 2)), 3 * MS);
        joiner.onMessage(2, new ViewChange(3, 2, 0, first, commitVotes(0, first, 0, 1, 2)), 3 * MS);
        assertThat(sentOf(ViewChange.class))
                .as("for view 3, the certificate of view 2 is the highest report")
                .containsOnly(new ViewChange(3, JOINER, 2, second, secondInView2));
    }

    @Test
    void shouldCountNoViewChangeOfARestartedVerifierItAnsweredWhileChangingViewUntilItSaysWhatItDid() {
        Verifier verifier = verifier(0, false);
        verifier.onMessage(1, new ViewChange(1, 1, -1, ViewChanges.ORIGIN, List.of()), MS);
        verifier.onMessage(2, new ViewChange(1, 2, -1, ViewChanges.ORIGIN, List.of()), MS);
        assertThat(verifier.changingView()).isTrue();
        verifier.onMessage(JOINER, new JoinQuery(JOINER, 7), 2 * MS);
        long ignored = verifier.ignored();
        // The review's case: a view change the joiner's earlier life sent, alone, before its restart.
        verifier.onMessage(JOINER, new ViewChange(4, JOINER, -1, ViewChanges.ORIGIN, List.of()), 3 * MS);
        assertThat(verifier.ignored())
                .as("answered while changing view: the filter holds all the same")
                .isEqualTo(ignored + 1);
        verifier.onMessage(JOINER, tookNoPartBelow(7, 3), 4 * MS);
        verifier.onMessage(JOINER, new ViewChange(4, JOINER, -1, ViewChanges.ORIGIN, List.of()), 5 * MS);
        assertThat(verifier.ignored())
                .as("for view 4, above the announced 3, only a certificate of view 3 or later")
                .isEqualTo(ignored + 2);
    }

    @Test
    void shouldRefuseANewViewHoldingAViewChangeOfItsOwnThatThisLifeDidNotSend() {
        Verifier verifier = verifier(1, false);
        // Verifier 1 never left view 0 in this life; a NewView of view 2 carries a view change in its name.
        NewView withAnEarlierLife = newView(2, 0, 1, 2);
        verifier.onMessage(2, withAnEarlierLife, MS);
        assertThat(verifier.view()).isZero();
        assertThat(verifier.rejectedNewViews()).isEqualTo(1);
        verifier.onMessage(2, new NewView(2, 2, viewChanges(2, 0, 2, 3), ViewChanges.ORIGIN), 2 * MS);
        assertThat(verifier.view()).as("without one of its own").isEqualTo(2);
    }

    @Test
    void shouldCountNoViewChangeOfAJoinerAnsweredInAnEarlierViewUntilItSaysWhatItDid() {
        Verifier verifier = verifier(0, false);
        verifier.onMessage(JOINER, new JoinQuery(JOINER, 7), MS);
        long ignored = verifier.ignored();
        // Answered in view 0; the joiner's earlier life may have been in view 1 (this verifier lagging behind),
        // so a certificate of view 1 may be one of its stale reports.
        List<Message> firstInView1 =
                List.of(new Prepare(1, 0, first), new Prepare(1, 1, first), new Prepare(1, 2, first));
        verifier.onMessage(JOINER, new ViewChange(2, JOINER, 1, first, firstInView1), 2 * MS);
        assertThat(verifier.ignored()).isEqualTo(ignored + 1);
        verifier.onMessage(JOINER, tookNoPartBelow(7, 2), 3 * MS);
        verifier.onMessage(JOINER, new ViewChange(2, JOINER, 1, first, firstInView1), 4 * MS);
        assertThat(verifier.ignored()).as("it took part in no view below 2").isEqualTo(ignored + 1);
    }

    @Test
    void shouldTakeAnAdoptionAnnouncedAfterALateQueryWasAnsweredInALaterView() {
        ViewChanges rules = new ViewChanges(QuorumConfig.bft(new int[] {0, 1, 2, 3}, 0), Evidence.PLAIN);
        rules.onRejoin(JOINER, 0, 7, false);
        // The joiner adopted view 0 at batch 1; a query it sent before that arrives after this verifier
        // entered view 1, and is answered there; then the announcement arrives.
        rules.onRejoin(JOINER, 1, 7, false);
        rules.onAdopted(JOINER, 7, 0, 1);
        assertThat(rules.check(new ViewChange(2, JOINER, 0, third, commitVotes(0, third, 0, 1, 2))))
                .as("batch 3 of view 0, the adopted batch + 2: it counts, as if answered in view 0")
                .isNotNull();
        assertThat(rules.check(new ViewChange(2, JOINER, 0, second, commitVotes(0, second, 0, 1, 2))))
                .as("batch 2: it may have been prepared for it before its restart")
                .isNull();
    }

    private static JoinState adopted(long nonce, Token token) {
        return new JoinState(JOINER, nonce, 0, false, 0, token, commitVotes(0, token, 0, 1, 2));
    }

    /**
     * docs/quorum.md, "Ordered incarnations": a query of an earlier incarnation delivered after the next one
     * adopted is not answered, and that earlier incarnation's announcement, delivered after it, leaves the filter
     * where the later incarnation set it.
     */
    @Test
    void shouldNotLetALateQueryOfAnEarlierIncarnationMoveTheFilterBack() {
        Verifier verifier = verifier(0, false);
        // The later incarnation (200) asks, and says it adopted view 0 at batch 3.
        verifier.onMessage(JOINER, new JoinQuery(JOINER, 200), MS);
        verifier.onMessage(JOINER, adopted(200, third), 2 * MS);
        sent.clear();
        // Then a query and the announcement of the earlier incarnation (100), which the network held until now.
        verifier.onMessage(JOINER, new JoinQuery(JOINER, 100), 3 * MS);
        assertThat(sentOf(JoinState.class))
                .as("a late query of an earlier incarnation is not answered")
                .isEmpty();
        assertThat(verifier.staleJoinQueries()).isEqualTo(1);
        verifier.onMessage(JOINER, adopted(100, first), 4 * MS);

        long ignored = verifier.ignored();
        // A stale view change with a certificate of batch 3 of view 0: the earlier incarnation's announcement
        // (batch 1) would let it count; the later one's (batch 3) lets only certificates from batch 5 count.
        verifier.onMessage(JOINER, new ViewChange(1, JOINER, 0, third, commitVotes(0, third, 0, 1, 2)), 5 * MS);
        assertThat(verifier.ignored()).isEqualTo(ignored + 1);
    }

    @Test
    void shouldAnswerTheQueryOfALaterIncarnation() {
        Verifier verifier = verifier(0, false);
        verifier.onMessage(JOINER, new JoinQuery(JOINER, 100), MS);
        verifier.onMessage(JOINER, new JoinQuery(JOINER, 200), 2 * MS);
        assertThat(sentOf(JoinState.class)).extracting(JoinState::nonce).containsExactly(100L, 200L);
        assertThat(verifier.staleJoinQueries()).isZero();
    }
}
