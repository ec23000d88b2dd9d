package io.eve.verify.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.execution.Token;
import io.eve.merkle.Digest;
import io.eve.protocol.Message;
import io.eve.protocol.Message.CommitVote;
import io.eve.protocol.Message.NewView;
import io.eve.protocol.Message.Prepare;
import io.eve.protocol.Message.Verify;
import io.eve.protocol.Message.VerifyResponse;
import io.eve.protocol.Message.ViewChange;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class VerifierTest {
    static final long MS = 1_000_000L;

    record Sent(int to, Message message) {}

    final List<Sent> sent = new ArrayList<>();

    static Digest digest(int fill) {
        byte[] bytes = new byte[Digest.LENGTH];
        java.util.Arrays.fill(bytes, (byte) fill);
        return Digest.of(bytes);
    }

    static Token token(long seq, int state, Token previous) {
        return Token.of(seq, digest(state), digest(0), previous == null ? digest(99) : previous.digest());
    }

    Verifier crash(int self) {
        Verifier verifier = new Verifier(
                QuorumConfig.crash(new int[] {0, 1, 2}, self),
                (to, m) -> sent.add(new Sent(to, m)),
                Evidence.PLAIN,
                false);
        verifier.start(0);
        return verifier;
    }

    Verifier bft(int self) {
        Verifier verifier = new Verifier(
                QuorumConfig.bft(new int[] {0, 1, 2, 3}, self),
                (to, m) -> sent.add(new Sent(to, m)),
                Evidence.PLAIN,
                false);
        verifier.start(0);
        return verifier;
    }

    <T extends Message> List<T> sentOf(Class<T> type) {
        return sent.stream()
                .map(Sent::message)
                .filter(type::isInstance)
                .map(type::cast)
                .toList();
    }

    /** Drives {@code verifier} to commit {@code token} in view 0 with the crash profile's quorums. */
    void commit(Verifier verifier, Token token) {
        verifier.onMessage(1, new Verify(0, token), MS);
        verifier.onMessage(2, new Verify(0, token), MS);
        verifier.onMessage(1, new Prepare(0, 1, token), MS);
        verifier.onMessage(1, new CommitVote(0, 1, token), MS);
    }

    @Test
    void shouldPrePrepareOnMaxURPlusOneMatchingVerifies() {
        Verifier verifier = crash(0);
        Token first = token(1, 1, null);
        verifier.onMessage(1, new Verify(0, first), MS);
        assertThat(sentOf(Prepare.class)).isEmpty();
        verifier.onMessage(2, new Verify(0, first), MS);
        assertThat(sentOf(Prepare.class)).containsExactly(new Prepare(0, 0, first), new Prepare(0, 0, first));
        assertThat(sent).extracting(Sent::to).containsExactly(1, 2);
    }

    @Test
    void shouldBePreparedAndCommitAtNvMinusU() {
        Verifier verifier = bft(0);
        Token first = token(1, 1, null);
        verifier.onMessage(1, new Verify(0, first), MS);
        verifier.onMessage(2, new Verify(0, first), MS);
        verifier.onMessage(1, new Prepare(0, 1, first), MS);
        assertThat(sentOf(CommitVote.class)).as("2 of the 3 prepares bft needs").isEmpty();
        verifier.onMessage(2, new Prepare(0, 2, first), MS);
        assertThat(sentOf(CommitVote.class)).hasSize(3);
        verifier.onMessage(3, new CommitVote(0, 3, first), MS);
        assertThat(verifier.committedSeq()).isZero();
        verifier.onMessage(2, new CommitVote(0, 2, first), MS);
        assertThat(verifier.committedSeq()).isEqualTo(1);
        assertThat(sent.stream()
                        .filter(s -> s.message() instanceof VerifyResponse)
                        .map(Sent::to))
                .containsExactly(0, 1, 2);
        assertThat(sentOf(VerifyResponse.class)).allMatch(r -> r.token().equals(first) && !r.sequential());
    }

    /** With pipelined agreement on (docs/quorum.md, "Pipelined agreement"); off by default. */
    Verifier pipelined(int depth) {
        Verifier verifier = new Verifier(
                QuorumConfig.crash(new int[] {0, 1, 2}, 0)
                        .withBatching(depth, 64, 2 * MS)
                        .withPipelinedAgreement(true),
                (to, m) -> sent.add(new Sent(to, m)),
                Evidence.PLAIN,
                false);
        verifier.start(0);
        return verifier;
    }

    @Test
    void shouldPrePrepareOnlyTheBatchAfterItsCommitWithoutPipelinedAgreement() {
        Verifier verifier = crash(0);
        Token first = token(1, 1, null);
        Token second = token(2, 2, first);
        for (Token token : List.of(first, second)) {
            verifier.onMessage(1, new Verify(0, token), MS);
            verifier.onMessage(2, new Verify(0, token), MS);
        }
        assertThat(sentOf(Prepare.class))
                .as("batch 2 waits for the commit of batch 1")
                .extracting(p -> p.token().seq())
                .containsExactly(1L, 1L);
        verifier.onMessage(1, new Prepare(0, 1, first), MS);
        verifier.onMessage(1, new CommitVote(0, 1, first), MS);
        assertThat(sentOf(Prepare.class)).extracting(p -> p.token().seq()).containsExactly(1L, 1L, 2L, 2L);
    }

    @Test
    void shouldPrePrepareTheNextBatchOnTheTokenItPrePreparedBeforeTheCommit() {
        Verifier verifier = pipelined(4);
        Token first = token(1, 1, null);
        Token second = token(2, 2, first);
        Token offBranch = token(2, 3, token(1, 7, null));
        verifier.onMessage(1, new Verify(0, offBranch), MS);
        verifier.onMessage(2, new Verify(0, second), MS);
        assertThat(sentOf(Prepare.class))
                .as("nothing pre-prepared at batch 1 yet: no anchor")
                .isEmpty();
        verifier.onMessage(1, new Verify(0, first), MS);
        verifier.onMessage(2, new Verify(0, first), MS);
        verifier.onMessage(0, new Verify(0, second), MS);
        assertThat(verifier.committedSeq()).isZero();
        assertThat(sentOf(Prepare.class))
                .as("batch 2 chains on the pre-prepared batch 1, not on a token from elsewhere")
                .containsExactly(
                        new Prepare(0, 0, first),
                        new Prepare(0, 0, first),
                        new Prepare(0, 0, second),
                        new Prepare(0, 0, second));
        verifier.onMessage(1, new Prepare(0, 1, second), MS);
        verifier.onMessage(1, new CommitVote(0, 1, second), MS);
        assertThat(verifier.committedSeq()).as("a commit of 2 covers 1").isEqualTo(2);
    }

    @Test
    void shouldPrePrepareAtMostThePipelineDepthPastItsCommit() {
        Verifier verifier = pipelined(2);
        Token first = token(1, 1, null);
        Token second = token(2, 2, first);
        Token third = token(3, 3, second);
        for (Token token : List.of(first, second, third)) {
            verifier.onMessage(1, new Verify(0, token), MS);
            verifier.onMessage(2, new Verify(0, token), MS);
        }
        assertThat(sentOf(Prepare.class)).extracting(p -> p.token().seq()).containsExactly(1L, 1L, 2L, 2L);
        verifier.onMessage(1, new Prepare(0, 1, first), MS);
        verifier.onMessage(1, new CommitVote(0, 1, first), MS);
        assertThat(sentOf(Prepare.class))
                .as("the commit of 1 lets batch 3 in")
                .extracting(p -> p.token().seq())
                .containsExactly(1L, 1L, 2L, 2L, 3L, 3L);
    }

    @Test
    void shouldAcceptOnlyVerifiesThatChainToTheCommittedToken() {
        Verifier verifier = crash(0);
        Token first = token(1, 1, null);
        commit(verifier, first);
        sent.clear();
        Token forged = token(2, 2, token(1, 7, null));
        verifier.onMessage(1, new Verify(0, forged), 2 * MS);
        verifier.onMessage(2, new Verify(0, forged), 2 * MS);
        assertThat(sentOf(Prepare.class)).isEmpty();
        Token chained = token(2, 2, first);
        verifier.onMessage(0, new Verify(0, chained), 2 * MS);
        assertThat(sentOf(Prepare.class)).isEmpty();
        assertThat(verifier.changingView())
                .as("three tokens arrived and no two chain and match: a new view")
                .isTrue();
    }

    @Test
    void shouldCountOneVerifyPerReplicaAndIgnoreForgedOnes() {
        Verifier verifier = bft(3);
        Token first = token(1, 1, null);
        verifier.onMessage(1, new Verify(0, first), MS);
        verifier.onMessage(1, new Verify(0, first), MS);
        verifier.onMessage(3, new Verify(0, first), MS); // process 3 hosts no execution replica
        Token badDigest = new Token(1, first.stateRoot(), first.replyDigest(), first.previous(), digest(5));
        verifier.onMessage(2, new Verify(0, badDigest), MS);
        verifier.onMessage(0, new Prepare(0, 1, first), MS); // names another sender
        assertThat(sentOf(Prepare.class)).isEmpty();
        assertThat(verifier.ignored()).isEqualTo(4);
        verifier.onMessage(2, new Verify(0, first), MS);
        assertThat(sentOf(Prepare.class)).hasSize(3);
    }

    @Test
    void shouldChangeViewWhenAgreementStallsForTheViewTimeout() {
        Verifier verifier = crash(0);
        Token first = token(1, 1, null);
        commit(verifier, first); // past the start-up grace
        assertThat(verifier.committedSeq()).isEqualTo(1);
        verifier.onMessage(1, new Verify(0, token(2, 2, first)), 2 * MS);
        verifier.onTick(400 * MS);
        assertThat(sentOf(ViewChange.class)).isEmpty();
        // The view timeout (500 ms) plus its random part, at most a quarter of it (decision 0028).
        verifier.onTick(2 * MS + 625 * MS + MS);
        assertThat(sentOf(ViewChange.class))
                .isNotEmpty()
                .allMatch(
                        change -> change.newView() == 1 && change.certificate().seq() == 1);
    }

    @Test
    void shouldGiveAClusterThatNeverCommittedAGraceBeforeChangingView() {
        Verifier verifier = crash(1);
        verifier.onMessage(0, new Verify(0, token(1, 1, null)), MS);
        verifier.onTick(400 * MS);
        assertThat(sentOf(ViewChange.class)).isEmpty();
        verifier.onTick(ViewChangeDriver.STARTUP_GRACE * 500 * MS - MS);
        assertThat(sentOf(ViewChange.class))
                .as("still within the start-up grace")
                .isEmpty();
        verifier.onTick(ViewChangeDriver.STARTUP_GRACE * 500 * MS + 2 * MS);
        assertThat(sentOf(ViewChange.class))
                .isNotEmpty()
                .allMatch(
                        change -> change.newView() == 1 && change.certificate().seq() == 0);
    }

    @Test
    void shouldNotChangeViewWhileAgreementIsSlowButProgressesAndShouldWhenItStops() {
        Verifier verifier = crash(1);
        // Batches commit at gaps growing from 300 ms to 1.5 s, three times the configured 500 ms view timeout.
        long now = 0;
        long gap = 300 * MS;
        Token previous = null;
        for (int seq = 1; seq <= 12; seq++) {
            Token next = token(seq, seq, previous);
            verifier.onMessage(0, new Verify(0, next), now + MS);
            for (long t = now + 10 * MS; t < now + gap; t += 10 * MS) {
                verifier.onTick(t);
            }
            now += gap;
            verifier.onMessage(2, new Verify(0, next), now);
            verifier.onMessage(2, new Prepare(0, 2, next), now);
            verifier.onMessage(2, new CommitVote(0, 2, next), now);
            assertThat(verifier.committedSeq()).isEqualTo(seq);
            previous = next;
            gap = Math.min(1_500 * MS, gap + 100 * MS);
        }
        assertThat(sentOf(ViewChange.class)).as("slow, but batches commit").isEmpty();
        // Then the next batch stalls for good: a view change within the estimate, long before 64 view timeouts.
        long stalledFrom = now + MS;
        verifier.onMessage(0, new Verify(0, token(13, 13, previous)), stalledFrom);
        long changedAt = -1;
        for (long t = stalledFrom + 10 * MS; t < stalledFrom + 32_000 * MS && changedAt < 0; t += 10 * MS) {
            verifier.onTick(t);
            if (!sentOf(ViewChange.class).isEmpty()) {
                changedAt = t;
            }
        }
        assertThat(changedAt - stalledFrom)
                .as("after the slowest progress seen (1.5 s), within a few times it")
                .isGreaterThan(1_500 * MS)
                .isLessThan(10_000 * MS);
    }

    @Test
    void shouldStartTheNewViewFromTheBestCertificateAndRefuseABadChoice() {
        Verifier leader = crash(1);
        Token first = token(1, 1, null);
        commit(leader, first); // commits 1 with a certificate of 2 commit votes
        leader.onTick(MS);
        Verifier other = crash(2);
        commit(other, first);
        List<Message> proof = List.of(new CommitVote(0, 1, first), new CommitVote(0, 2, first));
        ViewChange withCertificate = new ViewChange(1, 2, 0, first, proof);
        ViewChange without = new ViewChange(1, 0, -1, ViewChanges.ORIGIN, List.of());
        Verifier follower = crash(0);
        follower.onMessage(2, withCertificate, 2 * MS);
        assertThat(sentOf(ViewChange.class))
                .as("it follows verifier 2 (r + 1 = 1) with the view change the new view holds")
                .contains(without);
        follower.onMessage(1, new NewView(1, 1, List.of(withCertificate, without), ViewChanges.ORIGIN), 3 * MS);
        assertThat(follower.rejectedNewViews()).isEqualTo(1);
        assertThat(follower.view()).isZero();
        sent.clear();
        follower.onMessage(1, new NewView(1, 1, List.of(withCertificate, without), first), 4 * MS);
        assertThat(follower.view()).isEqualTo(1);
        assertThat(follower.committedSeq()).isEqualTo(1);
        assertThat(sentOf(Prepare.class))
                .as("the start is prepared again in the new view")
                .contains(new Prepare(1, 0, first));
        assertThat(sentOf(VerifyResponse.class))
                .as("no rollback before nV - u prepared the start")
                .isEmpty();
        follower.onMessage(2, new Prepare(1, 2, first), 5 * MS);
        assertThat(sentOf(VerifyResponse.class)).hasSize(3).allMatch(r -> r.view() == 1 && r.sequential());
    }

    @Test
    void shouldRefuseACertificateWithTooFewDistinctVouchers() {
        Token first = token(1, 1, null);
        ViewChange thin = new ViewChange(1, 2, 0, first, List.of(new Prepare(0, 1, first), new Prepare(0, 1, first)));
        ViewChanges rules = new ViewChanges(QuorumConfig.crash(new int[] {0, 1, 2}, 0), Evidence.PLAIN);
        assertThat(rules.check(thin)).isNull();
        ViewChange thick = new ViewChange(1, 2, 0, first, List.of(new Prepare(0, 1, first), new Prepare(0, 2, first)));
        assertThat(rules.check(thick).certificate().token()).isEqualTo(first);
    }
}
