package io.eve.verify.quorum;

import io.eve.execution.Token;
import io.eve.merkle.Digest;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/** Counts {@code VerifyResponse} messages by (view, batch, token) and distinct verifier (Eve §6.1: r + 1 match). */
final class Votes {
    private record Key(long view, long seq, Digest digest) {}

    private final Map<Key, Set<Integer>> voters = new HashMap<>();

    /** Records a vote; true the first time {@code quorum} distinct verifiers agree on it. */
    boolean add(long view, Token token, int verifier, int quorum) {
        Set<Integer> set = voters.computeIfAbsent(new Key(view, token.seq(), token.digest()), k -> new HashSet<>());
        return set.add(verifier) && set.size() == quorum;
    }

    /** Forgets votes of views before {@code view} and of batches up to {@code seq} in it. */
    void forget(long view, long seq) {
        Iterator<Key> keys = voters.keySet().iterator();
        while (keys.hasNext()) {
            Key key = keys.next();
            if (key.view() < view || (key.view() == view && key.seq() <= seq)) {
                keys.remove();
            }
        }
    }
}
