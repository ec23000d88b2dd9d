package io.eve.verify.quorum;

import io.eve.execution.Token;
import io.eve.protocol.Message;
import java.util.List;

/**
 * Proof that {@code token} was prepared in {@code view} (Eve §6.1): {@code nV - u} {@code Prepare} or
 * {@code CommitVote} messages from distinct verifiers, in evidence form. A correct verifier sends a
 * {@code CommitVote} only once prepared, so either kind proves the same.
 */
record Certificate(long view, Token token, List<Message> evidence) {
    Certificate {
        evidence = List.copyOf(evidence);
    }

    long seq() {
        return token.seq();
    }

    /** Eve §6.1 view change: the highest batch wins, ties go to the later view. */
    boolean isAbove(Certificate other) {
        return other == null || seq() > other.seq() || (seq() == other.seq() && view > other.view);
    }
}
