package io.eve.verify.auth;

import io.eve.protocol.Message;
import io.eve.protocol.Message.Authenticated;
import io.eve.verify.quorum.Evidence;
import java.util.Objects;

/**
 * {@link Evidence} with authenticators, for r >= 1 (docs/quorum.md, "Authenticators"): a verifier's own
 * {@code Prepare}, {@code CommitVote} and {@code ViewChange} become {@link Authenticated} envelopes with a
 * tag for every process, the very bytes {@link Envelopes} puts on the wire; forwarded evidence opens only if
 * the tag in this verifier's slot is right, the frame decodes to one of those three messages, and the
 * message's {@code verifier} field names the envelope's origin. So a Byzantine verifier can forward, but
 * not alter or invent, what others said: a certificate or a {@code NewView} checks out at every verifier
 * or at none.
 *
 * <p>Thread-safe; one per verifier.
 */
public final class MacEvidence implements Evidence {
    private final Envelopes envelopes;

    public MacEvidence(Envelopes envelopes) {
        this.envelopes = Objects.requireNonNull(envelopes, "envelopes");
    }

    /** Seals {@code own} if it is evidence; any other message is not kept as proof and stays as it is. */
    @Override
    public Message seal(Message own) {
        return Envelopes.isEvidence(own) ? envelopes.seal(own) : own;
    }

    @Override
    public Opened open(Message evidence) {
        if (!(evidence instanceof Authenticated envelope)) {
            return null; // with r >= 1 a bare message proves nothing: anyone can write it
        }
        Envelopes.Inbound opened = envelopes.open(envelope);
        if (!opened.accepted()
                || !Envelopes.isEvidence(opened.message())
                || Evidence.namedSender(opened.message()) != envelope.origin()) {
            return null;
        }
        return new Opened(envelope.origin(), opened.message());
    }

    /** The process whose evidence this is. */
    int self() {
        return envelopes.self();
    }

    @Override
    public String toString() {
        return "MacEvidence[verifier " + envelopes.self() + "]";
    }
}
