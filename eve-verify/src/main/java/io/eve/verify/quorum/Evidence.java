package io.eve.verify.quorum;

import io.eve.protocol.Message;
import io.eve.protocol.Message.CommitVote;
import io.eve.protocol.Message.Prepare;
import io.eve.protocol.Message.ViewChange;

/**
 * How a verifier keeps messages it may forward as proof ({@link Prepare}, {@link CommitVote} in a
 * certificate, {@link ViewChange} in a new view) and how it opens the ones others forward. Without
 * authenticators (r = 0) a message is its own evidence and names its sender; with them (r >= 1) the
 * evidence is the {@link Message.Authenticated} envelope with the original sender's tags, so every
 * receiver checks its own tag (Eve §3, docs/quorum.md "Authenticators").
 */
public interface Evidence {

    /** A message with the process that vouches for it. */
    record Opened(int origin, Message message) {}

    /** The evidence form of a message this verifier sends itself. */
    Message seal(Message own);

    /** The message inside {@code evidence} and its origin, or {@code null} if it does not check out here. */
    Opened open(Message evidence);

    /**
     * The message inside {@code evidence}, which arrived on the authenticated link from its origin, and that
     * origin, or {@code null}; with signed evidence a {@code Prepare}'s signature is not verified yet, and the
     * verifier counts it toward a certificate only once {@link #confirm} says it checks out (docs/quorum.md,
     * "Signed evidence", rule 2). Every other piece is opened as {@link #open} does.
     */
    default Opened claim(Message evidence) {
        return open(evidence);
    }

    /** Whether a piece taken with {@link #claim} checks out (with signed evidence: its signature verifies). */
    default boolean confirm(Message evidence) {
        return true;
    }

    /**
     * Whether {@link #confirm} checks a signature, a cost a verifier avoids when {@code nV - u + r} matching
     * {@code Prepare}s are there (docs/quorum.md, "Signed evidence", rule 2).
     */
    default boolean checksSignatures() {
        return false;
    }

    /**
     * Told by the verifier each time it makes a certificate without {@link #confirm}ing any piece, because
     * {@code nV - u + r} matching {@code Prepare}s were there (only when {@link #checksSignatures}): for the
     * evidence's counters.
     */
    default void certifiedUnchecked() {}

    /**
     * Whether a certificate holding {@code piece} may go into this verifier's view changes: with signed evidence
     * only a signed piece, which checks out the same at every receiver (docs/quorum.md, "Signed evidence");
     * without, every piece.
     */
    default boolean reportable(Message piece) {
        return true;
    }

    /** No authenticators: a message names its sender in its {@code verifier} field (crash faults only). */
    Evidence PLAIN = new Evidence() {
        @Override
        public Message seal(Message own) {
            return own;
        }

        @Override
        public Opened open(Message evidence) {
            if (evidence instanceof Prepare prepare) {
                return new Opened(prepare.verifier(), prepare);
            } else if (evidence instanceof CommitVote vote) {
                return new Opened(vote.verifier(), vote);
            } else if (evidence instanceof ViewChange change) {
                return new Opened(change.verifier(), change);
            }
            return null;
        }
    };

    /** Messages a verifier keeps as proof and forwards: {@code Prepare}, {@code CommitVote}, {@code ViewChange}. */
    static boolean isEvidence(Message message) {
        return message instanceof Prepare || message instanceof CommitVote || message instanceof ViewChange;
    }

    /** The verifier a message names as its sender, or -1 for a message that names none. */
    static int namedSender(Message message) {
        if (message instanceof Prepare prepare) {
            return prepare.verifier();
        } else if (message instanceof CommitVote vote) {
            return vote.verifier();
        } else if (message instanceof ViewChange change) {
            return change.verifier();
        } else if (message instanceof Message.NewView newView) {
            return newView.verifier();
        } else if (message instanceof Message.JoinQuery query) {
            return query.verifier();
        } else if (message instanceof Message.JoinState state) {
            return state.verifier();
        } else if (message instanceof Message.ViewQuery query) {
            return query.replica();
        }
        return -1;
    }
}
