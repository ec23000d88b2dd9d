package io.eve.verify.auth;

import io.eve.protocol.Message;
import io.eve.protocol.Message.Authenticated;
import io.eve.protocol.Message.ClientRequest;
import io.eve.protocol.Message.CommitVote;
import io.eve.protocol.Message.Prepare;
import io.eve.protocol.Message.ViewChange;
import io.eve.transport.wire.FrameCodec;
import io.eve.transport.wire.FrameException;
import io.eve.verify.quorum.Evidence;
import java.util.Objects;

/**
 * The rules of authenticated links between the processes of one cluster (docs/quorum.md,
 * "Authenticators"), as pure functions shared by {@link AuthenticatingTransport}, {@link MacEvidence} and
 * the simulator.
 *
 * <ul>
 *   <li>Out: a message to a process with keys is sealed into {@code Authenticated(self, frame, tags)}; a
 *       message this process already sealed goes as it is; a message to anyone else (a client) goes plain.
 *   <li>In, from a process with keys: only an envelope whose origin is that sender, whose tag for this
 *       process is right and whose frame decodes. {@link Prepare}, {@link CommitVote} and {@link ViewChange}
 *       are delivered still sealed, because the verifier keeps them as evidence and forwards them; every
 *       other message is delivered unwrapped.
 *   <li>In, from anyone else: clients hold no keys and are not authenticated in this version; only a plain
 *       {@link ClientRequest} or {@link Message.ReadRequest} is accepted from them.
 * </ul>
 *
 * <p>{@linkplain #onAuthenticatedLinks On links that authenticate their peer} (mutual TLS on TCP) and with signed
 * evidence, nothing is sealed: the link proves the sender, the signatures prove what travels further, and the tags
 * would prove neither more (docs/quorum.md, "Authenticators", "Tags or TLS"). A member's message is then accepted
 * bare, with the same checks of signed evidence; an envelope from a member is refused ({@link Rejection#SEALED}).
 *
 * <p>Thread-safe.
 */
public final class Envelopes {
    /** Why a message was not accepted. */
    public enum Rejection {
        /** A process with keys sent a message without an envelope. */
        UNSEALED,
        /** The envelope's origin is not the process that sent it. */
        WRONG_ORIGIN,
        /** The tag in this process's slot is wrong (or the vector has the wrong size). */
        BAD_TAG,
        /** The tag is right but the frame inside is not a valid message (or is itself an envelope). */
        UNDECODABLE,
        /** A sender without keys sent something other than a plain client request. */
        NOT_A_CLIENT_MESSAGE,
        /** With signed evidence: a {@code Prepare} or {@code ViewChange} without a signature. */
        UNSIGNED,
        /** With signed evidence: a signature that does not verify, or signed evidence in another's name. */
        BAD_SIGNATURE,
        /**
         * On links that authenticate their peer: an envelope, which a correct member never sends there (the two
         * processes disagree on whether their links are authenticated).
         */
        SEALED
    }

    /** What arrived, as it is to be delivered, or why it is dropped: exactly one of the two is set. */
    public record Inbound(Message message, Rejection rejection) {
        static Inbound accept(Message message) {
            return new Inbound(message, null);
        }

        static Inbound reject(Rejection rejection) {
            return new Inbound(null, rejection);
        }

        public boolean accepted() {
            return message != null;
        }
    }

    /** The last message sealed and its envelope: a broadcast seals once for all receivers. */
    private record Sealed(Message message, Authenticated envelope) {}

    private final Authenticator authenticator;
    private final FrameCodec codec;
    private final int self;
    private final SignedEvidence signed;
    private final boolean tagged;
    private volatile Sealed last;

    /**
     * The links of {@code authenticator}'s process. If its keys hold the Ed25519 keys of signed evidence
     * ({@link MacKeys#signs()}), evidence is signed: {@link #evidence()} is a {@link SignedEvidence}, and a
     * {@code Prepare}, {@code CommitVote} or {@code ViewChange} arriving on a link is accepted only signed by the
     * sender: a {@code ViewChange}'s signature is checked here, a {@code Prepare}'s by the verifier when it would
     * complete a certificate, a {@code CommitVote}'s when it is forwarded as proof (decision 0036).
     */
    public Envelopes(Authenticator authenticator, FrameCodec codec) {
        this(authenticator, codec, true);
    }

    private Envelopes(Authenticator authenticator, FrameCodec codec, boolean tagged) {
        this.authenticator = Objects.requireNonNull(authenticator, "authenticator");
        this.codec = Objects.requireNonNull(codec, "codec");
        this.self = authenticator.self();
        this.signed = authenticator.keys().signs()
                ? new SignedEvidence(authenticator.keys().signing(), codec)
                : null;
        this.tagged = tagged;
    }

    /**
     * The links of {@code authenticator}'s process where the transport itself proves who sent each message (mutual
     * TLS on TCP: the sender id is the one the peer's certificate names) and evidence is signed: messages leave
     * without tags, and a member's arrive bare (docs/quorum.md, "Authenticators", "Tags or TLS"). Not for links
     * whose sender the transport does not prove (RDMA rings, plain TCP).
     *
     * @throws IllegalArgumentException if the keys hold no signing keys: without signatures the tags are what makes
     *     forwarded evidence checkable
     */
    public static Envelopes onAuthenticatedLinks(Authenticator authenticator, FrameCodec codec) {
        if (!authenticator.keys().signs()) {
            throw new IllegalArgumentException("links without tags need signed evidence: process "
                    + authenticator.self() + "'s keys hold no signing keys");
        }
        return new Envelopes(authenticator, codec, false);
    }

    /** Whether messages between members carry tags ({@code false} {@link #onAuthenticatedLinks on authenticated links}). */
    public boolean tagged() {
        return tagged;
    }

    /**
     * The {@link Evidence} of this process's verifier: {@link SignedEvidence} with signing keys (the bft
     * profile as shipped), else {@link MacEvidence}.
     */
    public Evidence evidence() {
        return signed != null ? signed : new MacEvidence(this);
    }

    /** Whether evidence is signed (docs/quorum.md, "Signed evidence"). */
    public boolean signsEvidence() {
        return signed != null;
    }

    public int self() {
        return self;
    }

    /** Whether {@code id} holds keys: messages to and from it are authenticated. */
    public boolean isMember(int id) {
        return authenticator.keys().contains(id);
    }

    /** {@code message} in an envelope from this process with a tag for every process. */
    public Authenticated seal(Message message) {
        Sealed cached = last;
        if (cached != null && cached.message() == message) {
            return cached.envelope();
        }
        byte[] frame = codec.encode(message);
        Authenticated envelope = new Authenticated(self, frame, authenticator.tags(frame));
        last = new Sealed(message, envelope);
        return envelope;
    }

    /** What to put on the wire to send {@code message} to {@code to}. */
    public Message outbound(int to, Message message) {
        if (!tagged || !isMember(to) || (message instanceof Authenticated sealed && sealed.origin() == self)) {
            return message;
        }
        return seal(message);
    }

    /** What to deliver of {@code received}, which the transport says {@code from} sent, or why not. */
    public Inbound inbound(int from, Message received) {
        if (!isMember(from)) {
            return received instanceof ClientRequest || received instanceof Message.ReadRequest
                    ? Inbound.accept(received)
                    : Inbound.reject(Rejection.NOT_A_CLIENT_MESSAGE);
        }
        if (!tagged) {
            return received instanceof Authenticated
                    ? Inbound.reject(Rejection.SEALED)
                    : checkSigned(from, Inbound.accept(received));
        }
        if (!(received instanceof Authenticated envelope)) {
            return Inbound.reject(Rejection.UNSEALED);
        }
        if (envelope.origin() != from) {
            return Inbound.reject(Rejection.WRONG_ORIGIN);
        }
        Inbound opened = open(envelope);
        if (!opened.accepted()) {
            return opened;
        }
        if (opened.message() instanceof Authenticated) {
            return Inbound.reject(Rejection.UNDECODABLE); // an envelope in an envelope: never sent by a correct process
        }
        if (signed != null) {
            return checkSigned(from, opened);
        }
        if (opened.message() instanceof Message.Signed) {
            return Inbound.reject(Rejection.UNDECODABLE); // this cluster does not sign evidence
        }
        return isEvidence(opened.message()) ? Inbound.accept(envelope) : opened;
    }

    /** {@code opened}, a member's message as it came from {@code from}, if what it holds of signed evidence is. */
    private Inbound checkSigned(int from, Inbound opened) {
        // docs/quorum.md, "Signed evidence": a ViewChange's signature is checked here, on the receiving thread;
        // a Prepare's by the verifier, only if it would complete a certificate; a CommitVote's when forwarded.
        if (opened.message() instanceof Message.Signed piece) {
            if (piece.origin() != from) {
                return Inbound.reject(Rejection.WRONG_ORIGIN);
            }
            return signed.claim(piece) == null ? Inbound.reject(Rejection.BAD_SIGNATURE) : opened;
        }
        return isEvidence(opened.message()) ? Inbound.reject(Rejection.UNSIGNED) : opened;
    }

    /** The message inside {@code envelope} if its tag for this process is right and its frame decodes. */
    public Inbound open(Authenticated envelope) {
        if (!authenticator.verify(envelope.origin(), envelope.frame(), envelope.tags())) {
            return Inbound.reject(Rejection.BAD_TAG);
        }
        try {
            return Inbound.accept(codec.decode(envelope.frame()));
        } catch (FrameException e) {
            return Inbound.reject(Rejection.UNDECODABLE);
        }
    }

    /** Messages a verifier keeps sealed, as proof it may forward (Eve §6.1 certificates and view changes). */
    public static boolean isEvidence(Message message) {
        return Evidence.isEvidence(message);
    }
}
