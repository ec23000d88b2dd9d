package io.eve.verify.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.config.ConfigException;
import io.eve.execution.Token;
import io.eve.merkle.Digest;
import io.eve.protocol.Message;
import io.eve.protocol.Message.Authenticated;
import io.eve.protocol.Message.CommitVote;
import io.eve.protocol.Message.NewView;
import io.eve.protocol.Message.Prepare;
import io.eve.protocol.Message.Signed;
import io.eve.protocol.Message.Suspect;
import io.eve.protocol.Message.Verify;
import io.eve.protocol.Message.ViewChange;
import io.eve.transport.wire.FrameCodec;
import io.eve.verify.quorum.Evidence;
import io.eve.verify.quorum.QuorumConfig;
import io.eve.verify.quorum.Verifier;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/quorum.md, "Signed evidence": evidence signed with each verifier's own Ed25519 key opens the same at
 * every verifier, and a verifier holding only its own keys can forge no other verifier's evidence, in a piece
 * or inside a view change.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SignedEvidenceTest {
    static final long MS = 1_000_000L;
    /** One tick past how long a certificate waits for its last {@code Prepare}s after the quorum (rule 2). */
    static final long WAITED = 11 * MS;

    static final int[] IDS = {0, 1, 2, 3};
    static final int CLIENT_ID = 100;
    static final MacKeys KEYS = MacKeys.insecureForTests(5, IDS);
    static final FrameCodec CODEC = new FrameCodec(1 << 20);
    static final Token ORIGIN = Token.of(0, Digest.ZERO, Digest.ZERO, Digest.ZERO);

    final List<Message> sent = new ArrayList<>();

    /** What process {@code self} holds, and nothing more: its own part of the keys. */
    static Envelopes envelopes(int self) {
        return new Envelopes(new Authenticator(KEYS.forNode(self), self), CODEC);
    }

    static SignedEvidence evidence(int self) {
        return (SignedEvidence) envelopes(self).evidence();
    }

    static Token token(long seq, int fill) {
        byte[] bytes = new byte[Digest.LENGTH];
        Arrays.fill(bytes, (byte) fill);
        return Token.of(seq, Digest.of(bytes), Digest.ZERO, Digest.ZERO);
    }

    Verifier verifier(int self, SignedEvidence evidence) {
        Verifier verifier =
                new Verifier(QuorumConfig.bft(IDS, self), (to, message) -> sent.add(message), evidence, false);
        verifier.start(0);
        return verifier;
    }

    @Test
    void shouldOpenSignedEvidenceTheSameAtEveryVerifierAndSignEachMessageOnce() {
        SignedEvidence at1 = evidence(1);
        Prepare prepare = new Prepare(2, 1, token(3, 1));
        Message sealed = at1.seal(prepare);
        assertThat(sealed).isInstanceOf(Signed.class);
        assertThat(at1.seal(new Prepare(2, 1, token(3, 1))))
                .as("a retransmission reuses the signature")
                .isSameAs(sealed);
        assertThat(at1.signatures()).isEqualTo(1);
        for (int id : IDS) {
            assertThat(evidence(id).open(sealed)).isEqualTo(new Evidence.Opened(1, prepare));
        }
        Suspect notEvidence = new Suspect(1);
        assertThat(at1.seal(notEvidence)).isSameAs(notEvidence);
    }

    @Test
    void shouldRefuseEvidenceInAnotherVerifiersNameAndTamperedEvidence() {
        SignedEvidence at0 = evidence(0);
        SigningKeys byzantine = KEYS.forNode(3).signing(); // verifier 3 holds only its own private key
        Prepare ofOne = new Prepare(0, 1, token(4, 1));
        byte[] frame = CODEC.encode(ofOne);

        assertThatThrownBy(() -> byzantine.sign(1, frame))
                .as("it cannot sign as 1")
                .isInstanceOf(IllegalStateException.class);
        assertThat(at0.open(new Signed(1, frame, byzantine.sign(3, frame))))
                .as("origin 1, signed with 3's key")
                .isNull();
        assertThat(at0.open(new Signed(3, frame, byzantine.sign(3, frame))))
                .as("signed by 3, names 1")
                .isNull();
        Signed genuine = (Signed) evidence(1).seal(ofOne);
        byte[] altered = CODEC.encode(new Prepare(0, 1, token(4, 2)));
        assertThat(at0.open(new Signed(1, altered, genuine.signature())))
                .as("token changed")
                .isNull();
        byte[] flipped = genuine.signature().clone();
        flipped[10] ^= 1;
        assertThat(at0.open(new Signed(1, genuine.frame(), flipped)))
                .as("signature changed")
                .isNull();
        assertThat(at0.open(ofOne)).as("unsigned").isNull();
        assertThat(at0.open(envelopes(1).seal(ofOne))).as("tagged, not signed").isNull();
        assertThat(at0.badSignatures()).isEqualTo(4);
    }

    @Test
    void shouldRefuseAViewChangeCarryingForgedPreparesOfOthers() {
        SignedEvidence at1 = evidence(1);
        Verifier leader = verifier(1, at1); // leads view 1
        Token batch = token(4, 1);
        List<Message> proof = new ArrayList<>();
        for (int id = 0; id < 3; id++) {
            proof.add(evidence(id).seal(new Prepare(0, id, batch)));
        }
        // The Byzantine verifier 3 invents a token and Prepares of 0, 1 and 2 for it, signing them with the only
        // key it has; its own ViewChange is signed correctly.
        Token invented = token(9, 9);
        SigningKeys own = KEYS.forNode(3).signing();
        List<Message> forged = new ArrayList<>();
        for (int id = 0; id < 3; id++) {
            byte[] frame = CODEC.encode(new Prepare(0, id, invented));
            forged.add(new Signed(id, frame, own.sign(3, frame)));
        }
        forged.add(evidence(3).seal(new Prepare(0, 3, invented)));
        Message lying = evidence(3).seal(new ViewChange(1, 3, 0, invented, forged));
        Message honest = evidence(2).seal(new ViewChange(1, 2, 0, batch, proof));

        leader.onMessage(3, lying, MS);
        assertThat(leader.ignored()).as("the forged view change is refused").isEqualTo(1);
        assertThat(at1.badSignatures()).isEqualTo(3);
        leader.onMessage(2, honest, MS);
        assertThat(leader.changingView()).as("one valid view change: not r + 1").isFalse();
        leader.onMessage(3, evidence(3).seal(new ViewChange(1, 3, -1, ORIGIN, List.of())), 2 * MS);
        List<Token> starts = sent.stream()
                .filter(NewView.class::isInstance)
                .map(message -> ((NewView) message).start())
                .toList();
        assertThat(starts)
                .as("the new view starts from the prepared batch, never from the invented token")
                .containsExactly(batch, batch, batch);
    }

    @Test
    void shouldCheckSignaturesOnTheLinkAndRefuseUnsignedEvidence() {
        Envelopes at0 = envelopes(0);
        Prepare prepare = new Prepare(0, 1, token(2, 1));
        Message signed = evidence(1).seal(prepare);
        Envelopes from1 = envelopes(1);
        assertThat(at0.inbound(1, from1.outbound(0, signed)).message()).isEqualTo(signed);
        assertThat(at0.inbound(1, from1.outbound(0, prepare)).rejection()).isEqualTo(Envelopes.Rejection.UNSIGNED);
        SigningKeys own1 = KEYS.forNode(1).signing();
        byte[] ofTwo = CODEC.encode(new Prepare(0, 2, token(2, 1)));
        assertThat(at0.inbound(1, from1.outbound(0, new Signed(2, ofTwo, own1.sign(1, ofTwo))))
                        .rejection())
                .as("a spoofed origin inside an honest link")
                .isEqualTo(Envelopes.Rejection.WRONG_ORIGIN);
        Signed change = (Signed) evidence(1).seal(new ViewChange(1, 1, -1, ORIGIN, List.of()));
        byte[] flipped = change.signature().clone();
        flipped[0] ^= 1;
        assertThat(at0.inbound(1, from1.outbound(0, new Signed(1, change.frame(), flipped)))
                        .rejection())
                .as("a ViewChange's signature is checked on the link")
                .isEqualTo(Envelopes.Rejection.BAD_SIGNATURE);
        Signed genuine = (Signed) signed;
        byte[] flippedPrepare = genuine.signature().clone();
        flippedPrepare[0] ^= 1;
        assertThat(at0.inbound(1, from1.outbound(0, new Signed(1, genuine.frame(), flippedPrepare)))
                        .accepted())
                .as("a Prepare's signature is checked by the verifier, when it would complete a certificate")
                .isTrue();
        Authenticated suspect = from1.seal(new Suspect(3));
        assertThat(at0.inbound(1, suspect).message())
                .as("non-evidence is unwrapped")
                .isEqualTo(new Suspect(3));
    }

    /**
     * docs/quorum.md, "Tags or TLS": on links that prove their sender (mutual TLS on TCP) nothing is sealed, and a
     * member's bare message gets the same checks of signed evidence as one opened from an envelope.
     */
    @Test
    void shouldSendBareAndCheckSignedEvidenceOnAuthenticatedLinks() {
        Envelopes at0 = Envelopes.onAuthenticatedLinks(new Authenticator(KEYS.forNode(0), 0), CODEC);
        Envelopes from1 = Envelopes.onAuthenticatedLinks(new Authenticator(KEYS.forNode(1), 1), CODEC);
        assertThat(at0.tagged()).isFalse();
        assertThat(envelopes(0).tagged()).isTrue();
        Prepare prepare = new Prepare(0, 1, token(2, 1));
        Message signed = evidence(1).seal(prepare);
        assertThat(from1.outbound(0, signed)).as("no envelope on the wire").isSameAs(signed);
        assertThat(from1.outbound(0, new Suspect(3))).isEqualTo(new Suspect(3));

        assertThat(at0.inbound(1, signed).message()).isEqualTo(signed);
        assertThat(at0.inbound(1, new Suspect(3)).message()).isEqualTo(new Suspect(3));
        assertThat(at0.inbound(1, prepare).rejection()).isEqualTo(Envelopes.Rejection.UNSIGNED);
        assertThat(at0.inbound(2, signed).rejection())
                .as("1's signed Prepare on 2's link: forwarded evidence is no message of 2's")
                .isEqualTo(Envelopes.Rejection.WRONG_ORIGIN);
        Signed change = (Signed) evidence(1).seal(new ViewChange(1, 1, -1, ORIGIN, List.of()));
        byte[] flipped = change.signature().clone();
        flipped[0] ^= 1;
        assertThat(at0.inbound(1, new Signed(1, change.frame(), flipped)).rejection())
                .as("a ViewChange's signature is checked on the link")
                .isEqualTo(Envelopes.Rejection.BAD_SIGNATURE);
        assertThat(at0.inbound(1, envelopes(1).seal(new Suspect(3))).rejection())
                .as("an envelope: its sender seals where this process does not")
                .isEqualTo(Envelopes.Rejection.SEALED);
        assertThat(at0.inbound(CLIENT_ID, new Suspect(3)).rejection())
                .as("from a process without keys only client requests, as on tagged links")
                .isEqualTo(Envelopes.Rejection.NOT_A_CLIENT_MESSAGE);

        MacKeys macOnly = KEYS.forNode(0).withoutSigning();
        assertThatThrownBy(() -> Envelopes.onAuthenticatedLinks(new Authenticator(macOnly, 0), CODEC))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("need signed evidence");
    }

    /**
     * Decision 0036: a {@code CommitVote} is signed like the rest of the evidence, so a vote forwarded inside a
     * {@code JoinState} opens the same at every verifier; on the link its MAC decides and its signature is not
     * checked, and a vote with MACs only is refused there.
     */
    @Test
    void shouldSignCommitVotesAndCheckTheirSignaturesOnlyWhenForwarded() {
        SignedEvidence at1 = evidence(1);
        CommitVote vote = new CommitVote(2, 1, token(3, 1));
        Message sealed = at1.seal(vote);
        assertThat(sealed).as("a CommitVote is signed").isInstanceOf(Signed.class);
        assertThat(at1.signatures()).isEqualTo(1);
        assertThat(at1.reportable(sealed))
                .as("a commit made on the link is not reported in view changes (rule 3)")
                .isFalse();
        for (int id : IDS) {
            assertThat(evidence(id).open(sealed)).isEqualTo(new Evidence.Opened(1, vote));
        }
        Envelopes at0 = envelopes(0);
        Envelopes from1 = envelopes(1);
        assertThat(at0.inbound(1, from1.outbound(0, sealed)).message())
                .as("delivered still signed, as evidence")
                .isEqualTo(sealed);
        Signed genuine = (Signed) sealed;
        byte[] flipped = genuine.signature().clone();
        flipped[3] ^= 1;
        Signed badSignature = new Signed(1, genuine.frame(), flipped);
        SignedEvidence at2 = evidence(2);
        assertThat(at0.inbound(1, from1.outbound(0, badSignature)).accepted())
                .as("on the link the MAC decides; the signature is checked when the vote is forwarded")
                .isTrue();
        assertThat(at2.claim(badSignature)).isEqualTo(new Evidence.Opened(1, vote));
        assertThat(at2.verifications()).isZero();
        assertThat(at2.open(badSignature)).as("forwarded, it opens nowhere").isNull();
        assertThat(at2.badSignatures()).isEqualTo(1);
        Authenticated tagged = from1.seal(vote);
        assertThat(at0.inbound(1, tagged).rejection())
                .as("a vote with MACs only is refused where evidence is signed")
                .isEqualTo(Envelopes.Rejection.UNSIGNED);
        for (int id : IDS) {
            assertThat(evidence(id).open(tagged))
                    .as("a tagged vote proves nothing forwarded: its origin could make it check out at some only")
                    .isNull();
        }
        assertThat(evidence(0).open(from1.seal(new Prepare(2, 1, token(3, 1)))))
                .as("a Prepare with MACs only proves nothing where evidence is signed")
                .isNull();
    }

    /**
     * A verifier that committed a batch on {@code CommitVote}s (tagged, not signed) reports in its view change the
     * best {@code Prepare} certificate it holds, whose signatures check out at every verifier, not the commit.
     */
    @Test
    void shouldReportOnlyASignedPrepareCertificateInAViewChange() {
        SignedEvidence at0 = evidence(0);
        Verifier verifier = verifier(0, at0);
        Token first = token(1, 1);
        verifier.onMessage(0, new Verify(0, first), MS);
        verifier.onMessage(1, new Verify(0, first), MS);
        for (int id = 1; id <= 2; id++) {
            verifier.onMessage(id, evidence(id).seal(new Prepare(0, id, first)), MS);
            verifier.onMessage(id, evidence(id).seal(new CommitVote(0, id, first)), MS);
        }
        verifier.onTick(WAITED); // 3's Prepare never comes: the first tick 10 ms on ends the wait for it (rule 2)
        assertThat(verifier.committedSeq()).isEqualTo(1);
        Token second = Token.of(2, Digest.ZERO, Digest.ZERO, first.digest());
        for (int id = 1; id <= 3; id++) {
            verifier.onMessage(id, evidence(id).seal(new CommitVote(0, id, second)), WAITED + MS);
        }
        assertThat(verifier.committedSeq())
                .as("committed on the others' votes alone")
                .isEqualTo(2);
        verifier.onMessage(1, new Verify(0, Token.of(3, Digest.ZERO, Digest.ZERO, second.digest())), WAITED + 2 * MS);
        verifier.onTick(10_000 * MS);
        List<ViewChange> changes = sent.stream()
                .filter(Signed.class::isInstance)
                .map(message -> CODEC.decode(((Signed) message).frame()))
                .filter(ViewChange.class::isInstance)
                .map(ViewChange.class::cast)
                .toList();
        assertThat(changes).isNotEmpty();
        for (ViewChange change : changes) {
            assertThat(change.certificate()).isEqualTo(first);
            assertThat(change.evidence()).hasSize(3).allMatch(Signed.class::isInstance);
            for (int id : IDS) {
                assertThat(change.evidence()).allMatch(piece -> evidence(id).open(piece) != null);
            }
        }
    }

    /**
     * Rule 2 of docs/quorum.md, "Signed evidence": with {@code nV - u} matching Prepares only, a Prepare whose MAC is
     * right but whose signature is not (only its Byzantine origin can send one) does not complete a certificate;
     * the verifier waits for the last Prepare until a tick 10 ms on, then checks signatures, and is prepared only
     * once a Prepare that verifies takes the bad one's place, checking no more signatures than the certificate
     * needs.
     */
    @Test
    void shouldPrepareOnlyOnPreparesWhoseSignaturesVerify() {
        SignedEvidence at0 = evidence(0);
        Verifier verifier = verifier(0, at0);
        Token first = token(1, 1);
        verifier.onMessage(0, new Verify(0, first), MS);
        verifier.onMessage(1, new Verify(0, first), MS);
        verifier.onMessage(1, evidence(1).seal(new Prepare(0, 1, first)), MS);
        Signed genuine = (Signed) evidence(3).seal(new Prepare(0, 3, first));
        verifier.onMessage(3, badlySigned(genuine), MS);
        assertThat(sent).noneMatch(SignedEvidenceTest::isCommitVote);
        assertThat(at0.verifications())
                .as("waiting for the last Prepare, which would make checks needless")
                .isZero();
        verifier.onTick(WAITED);
        assertThat(sent).noneMatch(SignedEvidenceTest::isCommitVote);
        assertThat(at0.badSignatures()).isEqualTo(1);
        verifier.onMessage(3, genuine, WAITED);
        assertThat(sent)
                .as("the sender of a bad piece is not counted again for this batch")
                .noneMatch(SignedEvidenceTest::isCommitVote);
        verifier.onMessage(2, evidence(2).seal(new Prepare(0, 2, first)), WAITED);
        assertThat(sent).anyMatch(SignedEvidenceTest::isCommitVote);
        assertThat(at0.verifications())
                .as("the bad piece, then 1's and 2's: the quorum's, no more")
                .isEqualTo(3);
    }

    /**
     * Rule 2 of docs/quorum.md, "Signed evidence": with a matching Prepare of every verifier ({@code nV - u + r})
     * no signature is checked, not even a bad one, and the certificate is still good everywhere: at most {@code r}
     * of its pieces can be bad, so at least {@code nV - u} open at every verifier, and a view change reporting it
     * is valid at each.
     */
    @Test
    void shouldPrepareWithoutCheckingSignaturesWhenEveryVerifiersPrepareIsThere() {
        SignedEvidence at0 = evidence(0);
        Verifier verifier = verifier(0, at0);
        Token first = token(1, 1);
        verifier.onMessage(0, new Verify(0, first), MS);
        verifier.onMessage(1, new Verify(0, first), MS);
        verifier.onMessage(1, evidence(1).seal(new Prepare(0, 1, first)), MS);
        verifier.onMessage(2, evidence(2).seal(new Prepare(0, 2, first)), MS);
        assertThat(sent).noneMatch(SignedEvidenceTest::isCommitVote);
        verifier.onMessage(3, badlySigned((Signed) evidence(3).seal(new Prepare(0, 3, first))), MS);
        assertThat(sent).anyMatch(SignedEvidenceTest::isCommitVote);
        assertThat(at0.verifications()).isZero();
        assertThat(at0.uncheckedCertificates()).isEqualTo(1);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        at0.register(registry, 0);
        assertThat(registry.get("eve.quorum.certificates.unchecked")
                        .tag("node", "0")
                        .functionCounter()
                        .count())
                .as("published for operators")
                .isEqualTo(1);

        verifier.onTick(10_000 * MS); // nothing commits: a view change reports the certificate
        List<ViewChange> changes = sent.stream()
                .filter(Signed.class::isInstance)
                .map(message -> CODEC.decode(((Signed) message).frame()))
                .filter(ViewChange.class::isInstance)
                .map(ViewChange.class::cast)
                .toList();
        assertThat(changes).isNotEmpty();
        for (ViewChange change : changes) {
            assertThat(change.certificate()).isEqualTo(first);
            assertThat(change.evidence()).hasSize(4);
            for (int id : IDS) {
                SignedEvidence at = evidence(id);
                assertThat(change.evidence().stream().filter(piece -> at.open(piece) != null))
                        .as("pieces that open at verifier " + id)
                        .hasSize(3);
            }
        }
    }

    /**
     * A verifier whose last Prepare does not come waits for it once, until the first tick 10 ms after the quorum
     * (not the tick 4 ms after it); the batches after it are checked at once, without waiting, while the gap it saw
     * is recent.
     */
    @Test
    void shouldStopWaitingForPreparesThatDoNotCome() {
        SignedEvidence at0 = evidence(0);
        Verifier verifier = verifier(0, at0);
        Token first = token(1, 1);
        verifier.onMessage(0, new Verify(0, first), MS);
        verifier.onMessage(1, new Verify(0, first), MS);
        verifier.onMessage(1, evidence(1).seal(new Prepare(0, 1, first)), MS);
        verifier.onMessage(2, evidence(2).seal(new Prepare(0, 2, first)), MS);
        assertThat(sent).noneMatch(SignedEvidenceTest::isCommitVote);
        verifier.onTick(5 * MS);
        assertThat(sent).as("still waiting, 4 ms after the quorum").noneMatch(SignedEvidenceTest::isCommitVote);
        assertThat(at0.verifications()).isZero();
        verifier.onTick(WAITED);
        assertThat(sent).anyMatch(SignedEvidenceTest::isCommitVote);
        assertThat(at0.verifications()).isEqualTo(2);
        for (int id = 1; id <= 2; id++) {
            verifier.onMessage(id, evidence(id).seal(new CommitVote(0, id, first)), WAITED + MS);
        }
        assertThat(verifier.committedSeq()).isEqualTo(1);

        sent.clear();
        Token second = Token.of(2, Digest.ZERO, Digest.ZERO, first.digest());
        verifier.onMessage(0, new Verify(0, second), WAITED + 2 * MS);
        verifier.onMessage(1, new Verify(0, second), WAITED + 2 * MS);
        verifier.onMessage(1, evidence(1).seal(new Prepare(0, 1, second)), WAITED + 2 * MS);
        verifier.onMessage(2, evidence(2).seal(new Prepare(0, 2, second)), WAITED + 2 * MS);
        assertThat(sent)
                .as("prepared at once: the last batch's Prepare of 3 never came")
                .anyMatch(SignedEvidenceTest::isCommitVote);
        assertThat(at0.verifications()).isEqualTo(4);
        assertThat(at0.uncheckedCertificates()).isZero();

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        at0.register(registry, 0);
        assertThat(registry.get("eve.quorum.signatures")
                        .tag("node", "0")
                        .tag("op", "verified")
                        .functionCounter()
                        .count())
                .isEqualTo(4);
        assertThat(registry.get("eve.quorum.signatures")
                        .tag("op", "made")
                        .functionCounter()
                        .count())
                .isEqualTo(at0.signatures())
                .isPositive();
        assertThat(registry.get("eve.quorum.refused")
                        .tag("reason", "bad-signature")
                        .functionCounter()
                        .count())
                .isZero();
        assertThat(registry.get("eve.quorum.certificates.unchecked")
                        .functionCounter()
                        .count())
                .as("both certificates were checked")
                .isZero();
    }

    /**
     * A tick that falls between the quorum and the last Prepare, a moment later, does not end the wait: before,
     * with a tick every 5 ms and a batch every few milliseconds, nearly every batch's wait met a tick, counted as a
     * 20 ms gap, and the verifiers checked every certificate's signatures (15 to 26 % of a deployed bft replica's
     * CPU, docs/benchmarks.md).
     */
    @Test
    void shouldKeepWaitingAcrossATickForPreparesThatAreAMomentAway() {
        SignedEvidence at0 = evidence(0);
        Verifier verifier = verifier(0, at0);
        Token previous = null;
        long at = MS;
        for (int seq = 1; seq <= 3; seq++) {
            Token token = previous == null ? token(1, 1) : Token.of(seq, Digest.ZERO, Digest.ZERO, previous.digest());
            verifier.onMessage(0, new Verify(0, token), at);
            verifier.onMessage(1, new Verify(0, token), at);
            verifier.onMessage(1, evidence(1).seal(new Prepare(0, 1, token)), at);
            verifier.onMessage(2, evidence(2).seal(new Prepare(0, 2, token)), at);
            verifier.onTick(at + MS / 2);
            verifier.onMessage(3, evidence(3).seal(new Prepare(0, 3, token)), at + MS);
            for (int id = 1; id <= 3; id++) {
                verifier.onMessage(id, evidence(id).seal(new CommitVote(0, id, token)), at + MS);
            }
            assertThat(verifier.committedSeq()).isEqualTo(seq);
            previous = token;
            at += 4 * MS;
        }
        assertThat(at0.verifications()).as("no batch checked a signature").isZero();
        assertThat(at0.uncheckedCertificates()).isEqualTo(3);
    }

    /** {@code genuine} with one bit of its signature flipped: only its origin can send it on its link. */
    private static Signed badlySigned(Signed genuine) {
        byte[] flipped = genuine.signature().clone();
        flipped[5] ^= 1;
        return new Signed(genuine.origin(), genuine.frame(), flipped);
    }

    private static boolean isCommitVote(Message message) {
        return message instanceof Signed piece && CODEC.decode(piece.frame()) instanceof CommitVote;
    }

    @Test
    void shouldWriteAndLoadEachNodesOwnSigningKeyAndRefuseAnothers(@TempDir Path dir) throws Exception {
        MacKeys.generate(IDS, new java.security.SecureRandom()).writeNodeFiles(dir);
        Path file0 = dir.resolve("node-0").resolve(MacKeys.NODE_FILE);
        Path file2 = dir.resolve("node-2").resolve(MacKeys.NODE_FILE);
        MacKeys node0 = MacKeys.loadNode(file0, IDS, 0);
        MacKeys node2 = MacKeys.loadNode(file2, IDS, 2);
        byte[] frame = CODEC.encode(new Prepare(0, 2, token(1, 1)));
        Signed signed = new Signed(2, frame, node2.signing().sign(2, frame));
        assertThat(new Envelopes(new Authenticator(node0, 0), CODEC).evidence().open(signed))
                .isNotNull();

        String text0 = Files.readString(file0);
        String text2 = Files.readString(file2);
        assertThat(text0).contains("sign.private.0=").doesNotContain("sign.private.2=");
        String privateOf2 = text2.lines()
                .filter(line -> line.startsWith("sign.private.2="))
                .findFirst()
                .orElseThrow();
        assertThatThrownBy(() -> MacKeys.parseNode(text0 + privateOf2 + "\n", "node-0/macs.properties", IDS, 0))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("node-0/macs.properties line")
                .hasMessageContaining("sign.private.2 is the signing key of node 2, another node's secret");
        String noPublic3 =
                text0.lines().filter(line -> !line.startsWith("sign.public.3=")).reduce("", (a, b) -> a + b + "\n");
        assertThatThrownBy(() -> MacKeys.parseNode(noPublic3, "node-0/macs.properties", IDS, 0))
                .hasMessageContaining("node-0/macs.properties: no public signing key of node 3");
        String public2 = text2.lines()
                .filter(line -> line.startsWith("sign.public.2="))
                .findFirst()
                .orElseThrow()
                .substring("sign.public.2=".length());
        String swapped = text0.lines()
                .map(line -> line.startsWith("sign.public.0=") ? "sign.public.0=" + public2 : line)
                .reduce("", (a, b) -> a + b + "\n");
        assertThatThrownBy(() -> MacKeys.parseNode(swapped, "node-0/macs.properties", IDS, 0))
                .hasMessageContaining("sign.private.0 does not match sign.public.0");
        String noPrivate = text0.lines()
                .filter(line -> !line.startsWith("sign.private.0="))
                .reduce("", (a, b) -> a + b + "\n");
        assertThatThrownBy(() -> MacKeys.parseNode(noPrivate, "node-0/macs.properties", IDS, 0))
                .hasMessageContaining("node-0/macs.properties: no evidence signing key");
        String garbled = text0.replaceFirst("sign.public.1=", "sign.public.1=%%");
        assertThatThrownBy(() -> MacKeys.parseNode(garbled, "node-0/macs.properties", IDS, 0))
                .hasMessageContaining("sign.public.1 is not base64");
    }
}
