package io.eve.verify.sim;

import io.eve.execution.Token;
import io.eve.merkle.Digest;
import io.eve.protocol.Message;
import io.eve.protocol.Message.Authenticated;
import io.eve.protocol.Message.CommitVote;
import io.eve.protocol.Message.JoinState;
import io.eve.protocol.Message.NewView;
import io.eve.protocol.Message.Prepare;
import io.eve.protocol.Message.Signed;
import io.eve.protocol.Message.Verify;
import io.eve.protocol.Message.VerifyResponse;
import io.eve.protocol.Message.ViewChange;
import io.eve.transport.wire.FrameCodec;
import io.eve.verify.auth.Envelopes;
import io.eve.verify.sim.QuorumSimProcess.Byzantine;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * The Byzantine behaviours of the {@code bft-forge} profile, which attack the authenticators
 * (docs/quorum.md, "Authenticators") rather than the protocol's content. The process holds its own keys,
 * so what it says in its own name checks out; what it claims others said must not.
 *
 * <ul>
 *   <li>{@link Byzantine#FORGING_ORIGIN}: with each vote, token or response it sends, a forged one in the
 *       name of another process: an envelope claiming that origin from its own link (wrong origin), the same
 *       on that process's link (a spoofed connection: wrong tag), and a bare message on it (unsealed).
 *   <li>{@link Byzantine#TAMPERING_EVIDENCE}: its view changes carry a certificate for a batch nobody
 *       prepared, in the latest view possible, made of the others' real envelopes with altered frames; as
 *       leader, its new views erase the others' certificates the same way and start from batch 0.
 *   <li>{@link Byzantine#REPLAYING}: replays envelopes it received earlier to other processes, in its own
 *       name (wrong origin) and on the original sender's link (a spoofed connection: valid tags, so only the
 *       protocol's idempotence stops them).
 *
 *   <li>{@link Byzantine#FORGING_EVIDENCE}: see {@link #forgeEvidence}; with each {@code Prepare} and
 *       {@code VerifyResponse} it sends, forged ones in the name of another verifier, as for {@code
 *       FORGING_ORIGIN} (evidence signed with its own key, the only one it holds). Against rejoining verifiers
 *       (decision 0036): every other {@code CommitVote} of its own goes with a right MAC and a wrong
 *       signature (and every other {@code Prepare}, which completes correct verifiers' certificates unchecked when
 *       every verifier's {@code Prepare} is there: docs/quorum.md, "Signed evidence", rule 2), and it answers a {@code JoinQuery} with a commit proof for a token nobody committed, made
 *       of the others' votes signed with its own key.
 * </ul>
 *
 * <p>The process holds what a real member holds: its own MAC keys and its own signing key
 * ({@code Envelopes} built from its own part of the keys), nothing of the others.
 *
 * <p>Deterministic; single-threaded like the rest of the simulator.
 */
final class Forgeries {
    private static final int KEPT = 64;
    private static final Token ORIGIN = Token.of(0, Digest.ZERO, Digest.ZERO, Digest.ZERO);

    private final QuorumSimulation sim;
    private final int self;
    private final int[] members;
    private final Envelopes envelopes;
    private final FrameCodec codec;
    private final Byzantine behaviour;
    private final List<Authenticated> heard = new ArrayList<>();
    private long sends;
    private long forgedChanges;
    private long ownVotes;
    private long ownPrepares;

    Forgeries(QuorumSimulation sim, int self, int[] members, Envelopes envelopes, FrameCodec codec, Byzantine kind) {
        this.sim = sim;
        this.self = self;
        this.members = members.clone();
        this.envelopes = envelopes;
        this.codec = codec;
        this.behaviour = kind;
    }

    static boolean attacksAuthenticators(Byzantine kind) {
        return kind == Byzantine.FORGING_ORIGIN
                || kind == Byzantine.TAMPERING_EVIDENCE
                || kind == Byzantine.REPLAYING
                || kind == Byzantine.FORGING_EVIDENCE;
    }

    /** What the process really sends instead of {@code message}, before it is sealed. */
    Message tamper(Message message) {
        if (behaviour == Byzantine.FORGING_EVIDENCE) {
            return forgeEvidence(message);
        }
        if (behaviour != Byzantine.TAMPERING_EVIDENCE) {
            return message;
        }
        if (message instanceof ViewChange change && !change.evidence().isEmpty()) {
            long forgedView = change.newView() - 1;
            Token real = change.certificate();
            Token forged = Token.of(real.seq() + 1, fill(7), fill(8), real.digest());
            List<Message> evidence = new ArrayList<>();
            for (Message form : change.evidence()) {
                evidence.add(alter(form, inner -> vote(inner, forgedView, forged)));
            }
            sim.log("byzantine process " + self + " forges a certificate for " + forged + " in its view change");
            return new ViewChange(change.newView(), change.verifier(), forgedView, forged, evidence);
        }
        if (message instanceof NewView newView) {
            List<Message> forms = new ArrayList<>();
            for (Message form : newView.viewChanges()) {
                boolean others = (form instanceof Authenticated envelope && envelope.origin() != self)
                        || (form instanceof Signed piece && piece.origin() != self);
                forms.add(others ? alter(form, Forgeries::eraseCertificate) : form);
            }
            sim.log("byzantine process " + self + " erases the certificates in its new view " + newView.view());
            return new NewView(newView.view(), newView.verifier(), forms, ORIGIN);
        }
        return message;
    }

    /**
     * {@link Byzantine#FORGING_EVIDENCE}: its view changes report a certificate for a token nobody prepared,
     * one batch above its real one, in the latest view possible, made of {@code Prepare}s of every other
     * verifier in their names: signed with its own key (the only one it has), or (every other view change)
     * with the real signatures of the others' pieces over the forged frames. Its {@code VerifyResponse}s name
     * a wrong token.
     */
    private Message forgeEvidence(Message message) {
        if (message instanceof VerifyResponse response && response.token().seq() > 0) {
            return new VerifyResponse(response.view(), QuorumSimProcess.wrong(response.token()), response.sequential());
        }
        if (message instanceof CommitVote vote && ++ownVotes % 2 == 0) {
            // Counts on the link (its MAC is right), opens nowhere when a correct verifier forwards it.
            return badlySigned(vote);
        }
        if (message instanceof Prepare prepare && ++ownPrepares % 2 == 0) {
            // With every other verifier's Prepare it completes a certificate unchecked (docs/quorum.md, "Signed
            // evidence", rule 2), which must still hold nV - u pieces that open everywhere.
            return badlySigned(prepare);
        }
        if (message instanceof JoinState state && state.committed().seq() > 0) {
            return inventedProof(state);
        }
        if (!(message instanceof ViewChange change) || change.newView() < 1) {
            return message;
        }
        forgedChanges++;
        long forgedView = change.newView() - 1;
        Token real = change.certificate();
        Token invented = Token.of(real.seq() + 1, fill(5), fill(6), real.digest());
        Map<Integer, Signed> genuine = new TreeMap<>();
        for (Message form : change.evidence()) {
            if (form instanceof Signed piece) {
                genuine.put(piece.origin(), piece);
            }
        }
        List<Message> evidence = new ArrayList<>();
        for (int verifier : members) {
            Prepare prepare = new Prepare(forgedView, verifier, invented);
            if (verifier == self) {
                evidence.add(envelopes.evidence().seal(prepare)); // in its own name it may say anything
                continue;
            }
            byte[] frame = codec.encode(prepare);
            Signed spliced = genuine.get(verifier);
            if (forgedChanges % 2 == 0 && spliced != null) {
                evidence.add(new Signed(verifier, frame, spliced.signature()));
            } else {
                Signed own = (Signed) envelopes.evidence().seal(new Prepare(forgedView, self, invented));
                // The best it can do: its own signature, of another frame, under the victim's name.
                evidence.add(new Signed(verifier, frame, own.signature()));
            }
        }
        sim.log("byzantine process " + self + " forges Prepares of the others for " + invented
                + " in its view change to " + change.newView());
        return new ViewChange(change.newView(), change.verifier(), forgedView, invented, evidence);
    }

    /** {@code own} signed with its own key, one bit of the signature flipped: a right MAC, a wrong signature. */
    private Signed badlySigned(Message own) {
        Signed genuine = (Signed) envelopes.evidence().seal(own);
        byte[] signature = genuine.signature().clone();
        signature[0] ^= 1;
        sim.onBadlySignedEvidence();
        return new Signed(self, genuine.frame(), signature);
    }

    /**
     * An answer to a joiner claiming a commit one batch above its real one, of a token nobody prepared: the
     * others' votes for it signed with its own key, its own signed genuinely.
     */
    private JoinState inventedProof(JoinState state) {
        Token real = state.committed();
        Token invented = Token.of(real.seq() + 1, fill(3), fill(4), real.digest());
        Signed own = (Signed) envelopes.evidence().seal(new CommitVote(state.view(), self, invented));
        List<Message> proof = new ArrayList<>();
        for (int verifier : members) {
            if (verifier == self) {
                proof.add(own);
            } else {
                byte[] frame = codec.encode(new CommitVote(state.view(), verifier, invented));
                proof.add(new Signed(verifier, frame, own.signature()));
            }
        }
        sim.log("byzantine process " + self + " answers a joiner with a forged proof of " + invented);
        sim.onJoinProofForged();
        return new JoinState(state.verifier(), state.nonce(), state.view(), false, state.view(), invented, proof);
    }

    /** After the process sent {@code message} to {@code to}: what else it sends. */
    void afterSend(int to, Message message) {
        if (!envelopes.isMember(to) || to == self) {
            return;
        }
        sends++;
        Message inner = message instanceof Signed piece ? codec.decode(piece.frame()) : message;
        if (behaviour == Byzantine.FORGING_ORIGIN) {
            forge(to, inner);
        } else if (behaviour == Byzantine.FORGING_EVIDENCE
                && (inner instanceof VerifyResponse || inner instanceof Prepare)) {
            forge(to, inner);
        } else if (behaviour == Byzantine.REPLAYING && sends % 3 == 0 && !heard.isEmpty()) {
            Authenticated old = heard.get((int) ((sends / 3 * 7) % heard.size()));
            if (old.origin() != to) {
                sim.log("byzantine process " + self + " replays " + old + " to " + to);
                sim.network().send(old.origin(), to, old);
                sim.network().send(self, to, old);
            }
        }
    }

    /** Everything the process receives, before it is checked. */
    void onReceive(int from, Message raw) {
        if (behaviour == Byzantine.REPLAYING && raw instanceof Authenticated envelope && envelope.origin() != self) {
            heard.add(envelope);
            if (heard.size() > KEPT) {
                heard.remove(0);
            }
        }
    }

    private void forge(int to, Message message) {
        int victim = victim(to);
        Message forged = forgedVersion(message, victim);
        if (forged == null) {
            return;
        }
        if (envelopes.signsEvidence() && Envelopes.isEvidence(forged)) {
            // Evidence goes signed; in the victim's name it can only put its own signature on it.
            byte[] frame = codec.encode(forged);
            Signed own = (Signed) envelopes.evidence().seal(new Prepare(0, self, ORIGIN));
            forged = new Signed(victim, frame, own.signature());
        }
        Authenticated own = envelopes.seal(forged);
        Authenticated claimed = new Authenticated(victim, own.frame(), own.tags());
        sim.network().send(self, to, claimed);
        sim.network().send(victim, to, claimed);
        sim.network().send(victim, to, forged);
    }

    /** A process other than this one and {@code to}, rotating. */
    private int victim(int to) {
        int[] others = Arrays.stream(members).filter(m -> m != self && m != to).toArray();
        return others[(int) (sends % others.length)];
    }

    private static Message forgedVersion(Message message, int victim) {
        if (message instanceof Prepare prepare) {
            return new Prepare(prepare.view(), victim, QuorumSimProcess.wrong(prepare.token()));
        } else if (message instanceof CommitVote vote) {
            return new CommitVote(vote.view(), victim, QuorumSimProcess.wrong(vote.token()));
        } else if (message instanceof Verify verify) {
            return new Verify(verify.view(), QuorumSimProcess.wrong(verify.token()));
        } else if (message instanceof VerifyResponse response) {
            return new VerifyResponse(response.view(), QuorumSimProcess.wrong(response.token()), response.sequential());
        }
        return null;
    }

    private Message alter(Message form, UnaryOperator<Message> change) {
        if (form instanceof Signed piece) {
            // The original signature over an altered frame.
            Message inner = codec.decode(piece.frame());
            return new Signed(piece.origin(), codec.encode(change.apply(inner)), piece.signature());
        }
        if (!(form instanceof Authenticated envelope)) {
            return form;
        }
        Message inner = codec.decode(envelope.frame());
        return new Authenticated(envelope.origin(), codec.encode(change.apply(inner)), envelope.tags());
    }

    private static Message vote(Message inner, long view, Token token) {
        if (inner instanceof Prepare prepare) {
            return new Prepare(view, prepare.verifier(), token);
        } else if (inner instanceof CommitVote vote) {
            return new CommitVote(view, vote.verifier(), token);
        }
        return inner;
    }

    private static Message eraseCertificate(Message inner) {
        if (inner instanceof ViewChange change) {
            return new ViewChange(change.newView(), change.verifier(), -1, ORIGIN, List.of());
        }
        return inner;
    }

    private static Digest fill(int value) {
        byte[] bytes = new byte[Digest.LENGTH];
        Arrays.fill(bytes, (byte) value);
        return Digest.of(bytes);
    }
}
