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

    /**
     * The order a new view chooses its start by (docs/quorum.md, "Which certificate"): the later view
     * wins, then the higher batch. Ordering by batch first is safe but not live: a batch prepared in an
     * old view, above the start of a later one, names a state every replica has since rolled back.
     */
    boolean isAbove(Certificate other) {
        return other == null || view > other.view || (view == other.view && seq() > other.seq());
    }
}
