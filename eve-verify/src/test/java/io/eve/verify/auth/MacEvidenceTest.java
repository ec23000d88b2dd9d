package io.eve.verify.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.execution.Token;
import io.eve.merkle.Digest;
import io.eve.protocol.Message;
import io.eve.protocol.Message.Authenticated;
import io.eve.protocol.Message.CommitVote;
import io.eve.protocol.Message.NewView;
import io.eve.protocol.Message.Prepare;
import io.eve.protocol.Message.Suspect;
import io.eve.protocol.Message.Verify;
import io.eve.protocol.Message.VerifyResponse;
import io.eve.protocol.Message.ViewChange;
import io.eve.transport.wire.FrameCodec;
import io.eve.verify.quorum.Evidence;
import io.eve.verify.quorum.QuorumConfig;
import io.eve.verify.quorum.Verifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class MacEvidenceTest {
    static final long MS = 1_000_000L;
    static final int[] IDS = {0, 1, 2, 3};
    /** MAC-only keys: these tests are about the tag vectors (SignedEvidenceTest covers signed evidence). */
    static final MacKeys KEYS = MacKeys.insecureForTests(3, IDS).withoutSigning();

    static final FrameCodec CODEC = new FrameCodec(1 << 20);
    static final Token ORIGIN = Token.of(0, Digest.ZERO, Digest.ZERO, Digest.ZERO);

    final List<Message> sent = new ArrayList<>();

    static Envelopes envelopes(int self) {
        return new Envelopes(new Authenticator(KEYS, self), CODEC);
    }

    static MacEvidence evidence(int self) {
        return new MacEvidence(envelopes(self));
    }

    static Token token(long seq, int fill) {
        byte[] bytes = new byte[Digest.LENGTH];
        Arrays.fill(bytes, (byte) fill);
        return Token.of(seq, Digest.of(bytes), Digest.ZERO, Digest.ZERO);
    }

    /** {@code inner} re-encoded into {@code envelope}, whose tags stay those of the original frame. */
    static Authenticated alter(Message envelope, Message inner) {
        Authenticated original = (Authenticated) envelope;
        return new Authenticated(original.origin(), CODEC.encode(inner), original.tags());
    }

    Verifier verifier(int self) {
        Verifier verifier =
                new Verifier(QuorumConfig.bft(IDS, self), (to, message) -> sent.add(message), evidence(self), false);
        verifier.start(0);
        return verifier;
    }

    long sentOf(Class<? extends Message> type) {
        return sent.stream().filter(type::isInstance).count();
    }

    @Test
    void shouldOpenSealedEvidenceAtEveryVerifier() {
        Prepare prepare = new Prepare(2, 1, token(3, 1));
        Message sealed = evidence(1).seal(prepare);
        assertThat(sealed).isInstanceOf(Authenticated.class);
        for (int id : IDS) {
            assertThat(evidence(id).open(sealed)).isEqualTo(new Evidence.Opened(1, prepare));
        }
        Suspect notEvidence = new Suspect(1);
        assertThat(evidence(1).seal(notEvidence)).isSameAs(notEvidence);
    }

    @Test
    void shouldRejectForgedEvidence() {
        MacEvidence at0 = evidence(0);
        Prepare prepare = new Prepare(2, 1, token(3, 1));
        Message sealed = evidence(1).seal(prepare);

        assertThat(at0.open(prepare)).as("bare").isNull();
        assertThat(at0.open(alter(sealed, new Prepare(2, 1, token(3, 2)))))
                .as("altered token")
                .isNull();
        assertThat(at0.open(evidence(2).seal(prepare)))
                .as("sealed by 2, names 1")
                .isNull();
        Authenticated original = (Authenticated) sealed;
        assertThat(at0.open(new Authenticated(2, original.frame(), original.tags())))
                .as("origin changed")
                .isNull();
        byte[] tags = original.tags().clone();
        tags[0] ^= 1; // process 0's slot
        assertThat(at0.open(new Authenticated(1, original.frame(), tags)))
                .as("tag changed")
                .isNull();
        assertThat(evidence(3).open(new Authenticated(1, original.frame(), tags)))
                .as("other slot")
                .isNotNull();
        Authenticated suspect = envelopes(1).seal(new Suspect(4));
        assertThat(at0.open(suspect)).as("not evidence").isNull();
    }

    @Test
    void shouldRefuseAViewChangeWhoseCertificateWasTamperedWith() {
        Verifier leader = verifier(1); // leads view 1
        Token batch = token(4, 1);
        List<Message> proof = new ArrayList<>();
        for (int id = 0; id < 3; id++) {
            proof.add(evidence(id).seal(new Prepare(0, id, batch)));
        }
        Token forged = token(5, 9);
        List<Message> tampered = new ArrayList<>();
        for (int id = 0; id < 3; id++) {
            tampered.add(alter(proof.get(id), new Prepare(0, id, forged)));
        }
        Message honest = evidence(2).seal(new ViewChange(1, 2, 0, batch, proof));
        Message lying = evidence(3).seal(new ViewChange(1, 3, 0, forged, tampered));

        leader.onMessage(2, honest, MS);
        leader.onMessage(3, lying, MS);
        assertThat(leader.ignored()).isEqualTo(1);
        assertThat(leader.changingView())
                .as("one other verifier moved on, not r + 1")
                .isFalse();
        assertThat(sentOf(NewView.class)).isZero();

        Message correct = evidence(3).seal(new ViewChange(1, 3, -1, ORIGIN, List.of()));
        leader.onMessage(3, correct, 2 * MS);
        List<Token> starts = sent.stream()
                .filter(NewView.class::isInstance)
                .map(message -> ((NewView) message).start())
                .toList();
        assertThat(starts)
                .as("one NewView to each other verifier, from the honest certificate")
                .containsExactly(batch, batch, batch);
    }

    @Test
    void shouldTakeNoSecondEffectFromAReplayedEnvelope() {
        Verifier verifier = verifier(0);
        Token first = token(1, 1);
        verifier.onMessage(1, new Verify(0, first), MS);
        verifier.onMessage(2, new Verify(0, first), MS);
        Message prepare1 = envelopes(1).seal(new Prepare(0, 1, first));
        Message prepare2 = envelopes(2).seal(new Prepare(0, 2, first));
        Message vote1 = envelopes(1).seal(new CommitVote(0, 1, first));
        Message vote2 = envelopes(2).seal(new CommitVote(0, 2, first));
        verifier.onMessage(1, prepare1, MS);
        verifier.onMessage(1, prepare1, MS);
        verifier.onMessage(2, prepare2, MS);
        verifier.onMessage(1, vote1, MS);
        verifier.onMessage(1, vote1, MS); // replayed: still one vote from 1 with the own one
        assertThat(verifier.committedSeq()).isZero();
        verifier.onMessage(2, vote2, MS);
        assertThat(verifier.committedSeq()).isEqualTo(1);
        long responses = sentOf(VerifyResponse.class);
        assertThat(responses).isEqualTo(3); // one per execution replica

        for (Message replayed : List.of(prepare1, prepare2, vote1, vote2)) {
            verifier.onMessage(((Authenticated) replayed).origin(), replayed, 2 * MS);
        }
        assertThat(verifier.committedSeq()).isEqualTo(1);
        assertThat(sentOf(VerifyResponse.class)).isEqualTo(responses);
    }
}
