package io.eve.verify.quorum;

import io.eve.execution.Token;
import io.eve.merkle.Digest;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeSet;

/**
 * Counts {@code VerifyResponse} messages by (view, batch, token) and distinct verifier (Eve §6.1: r + 1 match).
 * Each verifier has at most {@code perVerifier} votes pending here (docs/quorum.md, "Bounded memory"): past
 * that its lowest is forgotten, so a hostile verifier that votes for ever new batches or views only pushes
 * out its own votes, and the newest of a correct one (what a lagging replica needs to catch up) stay.
 */
final class Votes {
    private record Key(long view, long seq, Digest digest) {}

    private static final Comparator<Key> ORDER =
            Comparator.comparingLong(Key::view).thenComparingLong(Key::seq).thenComparing(Key::digest);

    private final int perVerifier;
    private final Map<Key, Set<Integer>> voters = new HashMap<>();
    private final Map<Integer, NavigableSet<Key>> byVerifier = new HashMap<>();
    private final Refusals refusals;

    Votes(int perVerifier, Refusals refusals) {
        this.refusals = refusals;
        if (perVerifier < 1) {
            throw new IllegalArgumentException("perVerifier must be at least 1, got " + perVerifier);
        }
        this.perVerifier = perVerifier;
    }

    /** Records a vote; true the first time {@code quorum} distinct verifiers agree on it. */
    boolean add(long view, Token token, int verifier, int quorum) {
        Key key = new Key(view, token.seq(), token.digest());
        NavigableSet<Key> own = byVerifier.computeIfAbsent(verifier, v -> new TreeSet<>(ORDER));
        if (!own.add(key)) {
            return false;
        }
        Set<Integer> set = voters.computeIfAbsent(key, k -> new HashSet<>());
        set.add(verifier);
        boolean reached = set.size() == quorum;
        while (own.size() > perVerifier) {
            Key lowest = own.pollFirst();
            Set<Integer> of = voters.get(lowest);
            if (of != null) {
                of.remove(verifier);
                if (of.isEmpty()) {
                    voters.remove(lowest);
                }
            }
            refusals.add(Refusals.Reason.VOTE_EVICTED);
        }
        return reached;
    }

    /** Forgets votes of views before {@code view} and of batches up to {@code seq} in it. */
    void forget(long view, long seq) {
        voters.keySet().removeIf(key -> key.view() < view || (key.view() == view && key.seq() <= seq));
        for (NavigableSet<Key> own : byVerifier.values()) {
            own.removeIf(key -> key.view() < view || (key.view() == view && key.seq() <= seq));
        }
    }

    /** Votes held, over every (view, batch, token). */
    int size() {
        int size = 0;
        for (NavigableSet<Key> own : byVerifier.values()) {
            size += own.size();
        }
        return size;
    }
}
