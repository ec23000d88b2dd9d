package io.eve.verify.quorum;

import io.eve.execution.Token;
import io.eve.protocol.Message;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a {@link Verifier} knows of one batch in its current view (Eve §6.1): the {@code Verify} tokens of
 * the execution replicas, the other verifiers' {@code Prepare} and {@code CommitVote} (with the forms they
 * came in, kept as evidence for certificates), and how far this verifier got. Owned by the verifier's
 * protocol thread.
 */
final class Slot {
    final Map<Integer, Token> verifies = new LinkedHashMap<>();
    final Map<Integer, Token> prepares = new LinkedHashMap<>();
    final Map<Integer, Message> prepareForms = new LinkedHashMap<>();
    final Map<Integer, Token> votes = new LinkedHashMap<>();
    final Map<Integer, Message> voteForms = new LinkedHashMap<>();
    Token prePrepared;
    Token prepared;
    /** When this verifier first heard of the batch: its commit latency is measured from here. */
    long createdAt;
    /** When {@code nV - u} matching {@code Prepare}s were first here (-1: not yet). */
    long quorumAt = -1;
    /**
     * The token whose certificate waits for the last {@code Prepare}s, to be made without checking signatures
     * (docs/quorum.md, "Signed evidence", rule 2), or null; the next tick stops the wait.
     */
    Token waitingFor;

    /**
     * The forms of the messages among {@code tokens} that carry {@code token} (a sender whose form was refused
     * keeps its token, so that it is not counted again, and has no form).
     */
    static List<Message> matching(Map<Integer, Token> tokens, Map<Integer, Message> forms, Token token) {
        List<Message> matching = new ArrayList<>();
        for (Map.Entry<Integer, Token> entry : tokens.entrySet()) {
            Message form = forms.get(entry.getKey());
            if (form != null && entry.getValue().matches(token)) {
                matching.add(form);
            }
        }
        return matching;
    }
}
