package io.eve.verify.auth;

import io.eve.protocol.Message;
import io.eve.protocol.Message.CommitVote;
import io.eve.protocol.Message.Prepare;
import io.eve.protocol.Message.Signed;
import io.eve.transport.wire.FrameCodec;
import io.eve.transport.wire.FrameException;
import io.eve.verify.quorum.Evidence;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;

/**
 * {@link Evidence} with Ed25519 signatures, for r >= 1 (docs/quorum.md, "Signed evidence"; decisions 0022, 0030
 * and 0036): a verifier's own {@code Prepare}, {@code CommitVote} and {@code ViewChange} become {@link Signed}
 * messages signed with its own private key; a piece opens only if its signature verifies against the public key
 * of its origin, its frame decodes to one of those three messages, and that message names the origin as its
 * verifier. Unlike a tag vector, a signature checks out the same at every process, so a certificate a correct
 * verifier holds is valid everywhere, and no verifier can make evidence in another's name. A piece with MACs
 * only opens nowhere. On the link a {@code Prepare}'s or {@code CommitVote}'s signature is not checked
 * ({@link #claim}): a {@code Prepare}'s is checked when it would complete a certificate ({@link #confirm}), a
 * {@code CommitVote}'s only when the vote is forwarded as proof (inside a {@code JoinState}, and in the
 * certificate a rejoined verifier adopted from one); so a commit certificate made on the link is not reported in
 * view changes ({@link #reportable}).
 *
 * <p>Each message is signed once (retransmissions of an equal message reuse the signature); a piece that
 * verified once is not verified again while something still holds it. Thread-safe: the link verifies on the
 * transport's threads, the verifier opens on its protocol thread.
 */
public final class SignedEvidence implements Evidence {
    private static final int KEPT_SIGNATURES = 1024;
    private static final String SIGNATURES = "Ed25519 signatures: op=made, this verifier's own over its Prepares and"
            + " CommitVotes; op=verified, other verifiers' it checked, none while every verifier's Prepare arrives"
            + " within 10 ms of the quorum (docs/quorum.md, \"Signed evidence\", rule 2)";

    private final SigningKeys keys;
    private final FrameCodec codec;
    private final int self;
    private final Map<Message, Signed> sealed = Collections.synchronizedMap(new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Message, Signed> eldest) {
            return size() > KEPT_SIGNATURES;
        }
    });
    /** Pieces whose signature verified, with the message inside: weakly, so they go with their last holder. */
    private final Map<Signed, Message> verified = Collections.synchronizedMap(new WeakHashMap<>());

    private final Object counting = new Object();
    private long badSignatures;
    private long signatures;
    private long verifications;
    private long uncheckedCertificates;

    /**
     * The evidence of process {@code keys.holder()}.
     *
     * @throws IllegalArgumentException if {@code keys} is not one process's part
     */
    public SignedEvidence(SigningKeys keys, FrameCodec codec) {
        this.keys = Objects.requireNonNull(keys, "keys");
        this.codec = Objects.requireNonNull(codec, "codec");
        if (keys.holder() < 0) {
            throw new IllegalArgumentException("signed evidence signs for one process, not with " + keys);
        }
        this.self = keys.holder();
    }

    /** Whether a verifier signs {@code message}: its {@code Prepare}, {@code CommitVote} and {@code ViewChange}. */
    static boolean isSigned(Message message) {
        return Evidence.isEvidence(message);
    }

    /** Signs {@code own} if it is evidence; any other message is not kept as proof and stays as it is. */
    @Override
    public Message seal(Message own) {
        if (!isSigned(own)) {
            return own;
        }
        Signed cached = sealed.get(own);
        if (cached != null) {
            return cached;
        }
        byte[] frame = codec.encode(own);
        Signed signed = new Signed(self, frame, keys.sign(self, frame));
        count(1, 0, 0);
        sealed.put(own, signed);
        verified.put(signed, own);
        return signed;
    }

    @Override
    public Opened open(Message evidence) {
        if (!(evidence instanceof Signed signed)) {
            // With r >= 1 an unsigned piece proves nothing: anyone can write it. A tagged one proves something to
            // this process only, and its origin could make it check out here and not elsewhere (docs/quorum.md).
            return null;
        }
        Message inner = verified.get(signed);
        if (inner == null) {
            count(0, 1, 0);
            if (!keys.verify(signed.origin(), signed.frame(), signed.signature())) {
                count(0, 0, 1);
                return null;
            }
            try {
                inner = codec.decode(signed.frame());
            } catch (FrameException e) {
                count(0, 0, 1); // signed, but not a frame: never made by a correct verifier
                return null;
            }
            if (!isSigned(inner) || Evidence.namedSender(inner) != signed.origin()) {
                count(0, 0, 1);
                return null;
            }
            verified.put(signed, inner);
        }
        return new Opened(signed.origin(), inner);
    }

    /**
     * A {@code Prepare} or {@code CommitVote} as its origin sent it on the link, its signature not verified yet (a
     * {@code Prepare}'s is verified by {@link #confirm} when it would complete a certificate, a {@code
     * CommitVote}'s when it is opened as forwarded proof); any other piece as {@link #open} opens it.
     */
    @Override
    public Opened claim(Message evidence) {
        if (!(evidence instanceof Signed signed)) {
            return open(evidence);
        }
        Message inner = verified.get(signed);
        if (inner != null) {
            return new Opened(signed.origin(), inner);
        }
        try {
            inner = codec.decode(signed.frame());
        } catch (FrameException e) {
            count(0, 0, 1); // signed, but not a frame: never made by a correct verifier
            return null;
        }
        if ((inner instanceof Prepare || inner instanceof CommitVote)
                && Evidence.namedSender(inner) == signed.origin()) {
            return new Opened(signed.origin(), inner);
        }
        return open(evidence);
    }

    @Override
    public boolean confirm(Message evidence) {
        return !(evidence instanceof Signed) || open(evidence) != null;
    }

    @Override
    public boolean checksSignatures() {
        return true;
    }

    /**
     * Only a certificate of signed pieces whose signatures were checked before they counted is reported in view
     * changes: a {@code Prepare} certificate (rule 2 of docs/quorum.md, "Signed evidence"), not the
     * {@code CommitVote}s a commit was made of on the link (rule 3).
     */
    @Override
    public boolean reportable(Message piece) {
        if (!(piece instanceof Signed signed)) {
            return false;
        }
        try {
            return !(codec.decode(signed.frame()) instanceof CommitVote);
        } catch (FrameException e) {
            return false;
        }
    }

    private void count(int signed, int verified, int bad) {
        synchronized (counting) {
            signatures += signed;
            verifications += verified;
            badSignatures += bad;
        }
    }

    @Override
    public void certifiedUnchecked() {
        synchronized (counting) {
            uncheckedCertificates++;
        }
    }

    /**
     * Certificates this verifier made without verifying a signature, every verifier's matching {@code Prepare}
     * being there (docs/quorum.md, "Signed evidence", rule 2).
     */
    public long uncheckedCertificates() {
        synchronized (counting) {
            return uncheckedCertificates;
        }
    }

    /** Pieces refused: a signature that did not verify, or a signed frame that is not the origin's evidence. */
    public long badSignatures() {
        synchronized (counting) {
            return badSignatures;
        }
    }

    /** Signatures made so far. */
    public long signatures() {
        synchronized (counting) {
            return signatures;
        }
    }

    /** Signatures verified so far (pieces opened again are not verified again). */
    public long verifications() {
        synchronized (counting) {
            return verifications;
        }
    }

    /**
     * Publishes the counts, tagged with {@code node}: {@code eve.quorum.refused} with reason {@code bad-signature}
     * ({@link #badSignatures}), {@code eve.quorum.signatures} with {@code op} = {@code made} ({@link
     * #signatures}) and {@code verified} ({@link #verifications}), and {@code eve.quorum.certificates.unchecked}
     * ({@link #uncheckedCertificates}).
     */
    public void register(MeterRegistry registry, int node) {
        // One text for both: a Prometheus scrape shows one HELP line per name, whichever meter registered first.
        String id = Integer.toString(node);
        FunctionCounter.builder("eve.quorum.refused", this, SignedEvidence::badSignatures)
                .description("signed evidence refused: a signature that did not verify against the key of the"
                        + " verifier it names")
                .tag("node", id)
                .tag("reason", "bad-signature")
                .register(registry);
        FunctionCounter.builder("eve.quorum.signatures", this, SignedEvidence::signatures)
                .description(SIGNATURES)
                .tag("node", id)
                .tag("op", "made")
                .register(registry);
        FunctionCounter.builder("eve.quorum.signatures", this, SignedEvidence::verifications)
                .description(SIGNATURES)
                .tag("node", id)
                .tag("op", "verified")
                .register(registry);
        FunctionCounter.builder("eve.quorum.certificates.unchecked", this, SignedEvidence::uncheckedCertificates)
                .description("certificates of Prepares made without verifying a signature: every verifier's matching"
                        + " Prepare arrived, so at most r can be forged (decision 0047)")
                .tag("node", id)
                .register(registry);
    }

    @Override
    public String toString() {
        return "SignedEvidence[verifier " + self + "]";
    }
}
