package io.eve.verify.auth;

import static io.eve.verify.auth.SignedEvidenceTest.CODEC;
import static io.eve.verify.auth.SignedEvidenceTest.IDS;
import static io.eve.verify.auth.SignedEvidenceTest.KEYS;
import static io.eve.verify.auth.SignedEvidenceTest.MS;
import static io.eve.verify.auth.SignedEvidenceTest.WAITED;
import static io.eve.verify.auth.SignedEvidenceTest.envelopes;
import static io.eve.verify.auth.SignedEvidenceTest.evidence;
import static org.assertj.core.api.Assertions.assertThat;

import io.eve.execution.Token;
import io.eve.merkle.Digest;
import io.eve.protocol.Message;
import io.eve.protocol.Message.CommitVote;
import io.eve.protocol.Message.JoinQuery;
import io.eve.protocol.Message.JoinState;
import io.eve.protocol.Message.Prepare;
import io.eve.protocol.Message.Signed;
import io.eve.protocol.Message.Verify;
import io.eve.verify.quorum.QuorumConfig;
import io.eve.verify.quorum.Verifier;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Decision 0036, docs/quorum.md "Signed evidence": the {@code CommitVote}s a {@code JoinState} carries to a
 * restarted verifier, and that the verifier forwards in its announcement and view changes, are signed, so they
 * check out the same at every verifier. Verifier 3 is Byzantine and holds only its own keys.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SignedJoinProofTest {
    private static final int BYZANTINE = 3;
    private static final int JOINER = 2;
    private static final long NONCE = 17;

    private final List<Message> sent = new ArrayList<>();
    private final Token first = SignedEvidenceTest.token(1, 1);

    private Verifier verifier(int self, boolean recovering) {
        Verifier verifier = new Verifier(
                QuorumConfig.bft(IDS, self), (to, message) -> sent.add(message), evidence(self), recovering, NONCE);
        verifier.start(0);
        return verifier;
    }

    /** A vote in {@code verifier}'s name: what the Byzantine verifier can make of it with its own key only. */
    private static Signed forgedVote(int verifier, Token token) {
        byte[] frame = CODEC.encode(new CommitVote(0, verifier, token));
        return new Signed(verifier, frame, KEYS.forNode(BYZANTINE).signing().sign(BYZANTINE, frame));
    }

    /** The Byzantine verifier's own vote, with a right MAC on the link and a signature that does not verify. */
    private static Signed badlySignedVote(Token token) {
        Signed genuine = (Signed) evidence(BYZANTINE).seal(new CommitVote(0, BYZANTINE, token));
        byte[] flipped = genuine.signature().clone();
        flipped[7] ^= 1;
        return new Signed(BYZANTINE, genuine.frame(), flipped);
    }

    private static boolean opensAtEveryVerifier(Message piece) {
        for (int id : IDS) {
            if (evidence(id).open(piece) == null) {
                return false;
            }
        }
        return true;
    }

    private List<JoinState> joinStates() {
        return sent.stream()
                .filter(JoinState.class::isInstance)
                .map(JoinState.class::cast)
                .toList();
    }

    /**
     * Verifier 0 commits batch 1 on its own vote, 1's and the Byzantine verifier's, whose signature is wrong (on the
     * link only the MAC is checked); 2's vote comes after the commit. Asked by a joiner, it answers with a proof
     * whose every piece opens at every verifier: 2's vote in place of the Byzantine one.
     */
    @Test
    void shouldAnswerAJoinerWithAProofEveryVerifierAccepts() {
        Verifier verifier = verifier(0, false);
        verifier.onMessage(0, new Verify(0, first), MS);
        verifier.onMessage(1, new Verify(0, first), MS);
        verifier.onMessage(1, evidence(1).seal(new Prepare(0, 1, first)), MS);
        verifier.onMessage(2, evidence(2).seal(new Prepare(0, 2, first)), MS);
        verifier.onTick(WAITED); // the Byzantine verifier sends no Prepare: the tick 10 ms on ends the wait for it
        verifier.onMessage(1, evidence(1).seal(new CommitVote(0, 1, first)), WAITED + MS);
        verifier.onMessage(BYZANTINE, badlySignedVote(first), WAITED + MS);
        assertThat(verifier.committedSeq())
                .as("the bad signature was not checked on the link")
                .isEqualTo(1);

        verifier.onMessage(JOINER, new JoinQuery(JOINER, NONCE), WAITED + 2 * MS);
        JoinState withoutSpare = joinStates().get(0);
        assertThat(withoutSpare.evidence())
                .as("no spare vote yet: the proof as it is, which the joiner refuses as it would silence")
                .contains(badlySignedVote(first));

        verifier.onMessage(JOINER, evidence(JOINER).seal(new CommitVote(0, JOINER, first)), WAITED + 3 * MS);
        sent.clear();
        verifier.onMessage(JOINER, new JoinQuery(JOINER, NONCE), WAITED + 4 * MS);
        JoinState answer = joinStates().get(0);
        assertThat(answer.committed()).isEqualTo(first);
        assertThat(answer.evidence())
                .hasSize(3)
                .doesNotContain(badlySignedVote(first))
                .allMatch(SignedJoinProofTest::opensAtEveryVerifier);
    }

    /**
     * A joiner refuses an answer whose proof is the Byzantine verifier's invention (the others' votes signed with
     * its own key) or tagged only, and adopts once every other verifier gave a proof that verifies; what it then
     * announces to the others opens at every one of them.
     */
    @Test
    void shouldAdoptOnlyASignedProofAndAnnounceOneEveryVerifierAccepts() {
        List<Message> genuine = new ArrayList<>();
        for (int id : new int[] {0, 1, BYZANTINE}) {
            genuine.add(evidence(id).seal(new CommitVote(0, id, first)));
        }
        Token invented = Token.of(5, Digest.ZERO, Digest.ZERO, first.digest());
        List<Message> inventedProof = List.of(
                forgedVote(0, invented),
                forgedVote(1, invented),
                evidence(BYZANTINE).seal(new CommitVote(0, BYZANTINE, invented)));
        List<Message> tagged = new ArrayList<>();
        for (int id : new int[] {0, 1, BYZANTINE}) {
            tagged.add(envelopes(id).seal(new CommitVote(0, id, first)));
        }

        Verifier joiner = verifier(JOINER, true);
        joiner.onMessage(0, new JoinState(0, NONCE, 0, false, 0, first, genuine), MS);
        joiner.onMessage(BYZANTINE, new JoinState(BYZANTINE, NONCE, 0, false, 0, first, genuine), MS);
        joiner.onMessage(1, new JoinState(1, NONCE, 0, false, 0, first, tagged), MS);
        assertThat(joiner.recovering())
                .as("a proof of votes with MACs only is refused: no adoption")
                .isTrue();

        joiner.onMessage(BYZANTINE, new JoinState(BYZANTINE, NONCE, 0, false, 0, invented, inventedProof), 2 * MS);
        joiner.onMessage(1, new JoinState(1, NONCE, 0, false, 0, first, genuine), 2 * MS);
        assertThat(joiner.recovering())
                .as("the invented proof is refused and stands in the way")
                .isTrue();
        joiner.onMessage(BYZANTINE, new JoinState(BYZANTINE, NONCE, 0, false, 0, first, genuine), 3 * MS);
        assertThat(joiner.recovering()).isFalse();
        assertThat(joiner.committedSeq()).as("never the invented batch").isEqualTo(1);
        assertThat(joiner.committedToken()).isEqualTo(first);

        List<JoinState> announced = joinStates().stream()
                .filter(state -> state.verifier() == JOINER)
                .toList();
        assertThat(announced).isNotEmpty();
        for (JoinState announcement : announced) {
            assertThat(announcement.committed()).isEqualTo(first);
            assertThat(announcement.evidence()).hasSize(3).allMatch(SignedJoinProofTest::opensAtEveryVerifier);
        }
    }
}
