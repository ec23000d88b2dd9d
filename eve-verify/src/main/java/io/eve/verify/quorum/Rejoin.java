package io.eve.verify.quorum;

import io.eve.protocol.Message.JoinState;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The joining side of a verifier that restarted without its state (docs/quorum.md, "Rejoining"): the
 * {@code JoinState} answers to its {@code JoinQuery}, and whether they let it take part in the others' view
 * now instead of waiting for a new one. It does once every other verifier answered, all in the same view
 * and none leaving it, each with a valid commit certificate of that view (or, in view 0, nothing committed
 * yet). A Byzantine verifier cannot make it adopt a view or batch alone: a false view, or a view change it
 * hides, disagrees with the answers of the correct verifiers; a false batch has no certificate.
 *
 * <p>With {@code u >= 2} another verifier may be rejoining at the same time: it answers "recovering" (it
 * knows no view), and the answers of the others suffice if at least {@code nV - u} of them are real
 * (docs/quorum.md, "Two joiners at once"): the recovering ones are faults too, so the others still hold
 * every correct verifier.
 *
 * <p>Not thread-safe: the verifier's protocol thread calls it.
 */
final class Rejoin {
    /**
     * What a joiner adopts: the view, its last commit there (null: the initial state, view 0 only), and the
     * last batch it may have voted on before it restarted, for which it must not send {@code Prepare}.
     */
    record Adopted(long view, Certificate committed, long abstainThrough) {}

    private final QuorumConfig config;
    private final ViewChanges rules;
    private final long nonce;
    private final Map<Integer, JoinState> answers = new TreeMap<>();
    /** Verifiers that answered while rejoining themselves, and have not answered otherwise since. */
    private final Set<Integer> recovering = new TreeSet<>();
    /**
     * Per verifier that answered: the lowest view it reported having reached (a correct verifier's first
     * answer; any answer after the restart bounds the earlier lives' views as well).
     */
    private final Map<Integer, Long> lowestReached = new TreeMap<>();

    Rejoin(QuorumConfig config, ViewChanges rules, long nonce) {
        this.config = config;
        this.rules = rules;
        this.nonce = nonce;
    }

    long nonce() {
        return nonce;
    }

    /** Keeps {@code from}'s latest answer to this incarnation's query; false if it is not one. */
    boolean onJoinState(int from, JoinState state) {
        if (state.nonce() != nonce || state.verifier() != from || from == config.self() || !config.isVerifier(from)) {
            return false;
        }
        if (isRecoveringAnswer(state)) {
            if (!answers.containsKey(from)) {
                recovering.add(from); // delivered after a real answer of the same verifier, it changes nothing
            }
            return true;
        }
        answers.put(from, state);
        recovering.remove(from);
        lowestReached.merge(from, state.view(), Math::min);
        return true;
    }

    /**
     * The answer of a verifier that is rejoining itself to the query with {@code nonce}: it knows no view and no
     * commit, only that this incarnation asked (it set its filter for it, rule F). View -1, leaving, certificate
     * view -2.
     */
    static JoinState recoveringAnswer(int self, long nonce) {
        return new JoinState(self, nonce, -1, true, ViewChanges.RECOVERING, ViewChanges.ORIGIN, List.of());
    }

    private static boolean isRecoveringAnswer(JoinState state) {
        return state.view() < 0 && state.changing() && state.certificateView() == ViewChanges.RECOVERING;
    }

    /**
     * A view at least as high as every view this verifier's earlier lives entered (docs/quorum.md, "Counting
     * again without a rejoin"), or {@link Long#MAX_VALUE} until {@code nV - u} other verifiers answered: the
     * {@code (nV - u)}-th lowest of the lowest views they reported. Entering a view needs a
     * {@code NewView} on {@code nV - u} view changes for it, so every {@code nV - u} answerers include {@code r +
     * 1} of their senders, one of them correct, which had reached that view before the restart.
     */
    long earlierViewsBound() {
        int quorum = config.agreementQuorum();
        if (lowestReached.size() < quorum) {
            return Long.MAX_VALUE;
        }
        return lowestReached.values().stream()
                .sorted()
                .skip(quorum - 1)
                .findFirst()
                .orElseThrow();
    }

    /** The view and batch to adopt if the answers allow it now, or null. */
    Adopted tryAdopt() {
        if (answers.size() + recovering.size() < config.verifiers().length - 1
                || answers.size() < config.agreementQuorum()) {
            return null;
        }
        long view = -1;
        Certificate highest = null;
        for (JoinState state : answers.values()) {
            if (state.changing() || (view >= 0 && state.view() != view)) {
                return null;
            }
            view = state.view();
            Certificate certificate = commitCertificate(rules, state);
            if (certificate == null && !(view == 0 && isNothingCommitted(state))) {
                return null;
            }
            if (certificate != null && (highest == null || certificate.seq() > highest.seq())) {
                highest = certificate;
            }
        }
        long committed = highest == null ? 0 : highest.seq();
        // docs/quorum.md, "Rejoining" and "Pipelined agreement": before its restart this verifier voted on no
        // batch above committed + 2D, D the agreement depth.
        return new Adopted(view, highest, committed + 2L * config.agreementDepth());
    }

    /**
     * The batch a state proves committed in its view: the certificate's batch, 0 for "nothing committed" in
     * view 0, or -1 if it proves nothing.
     */
    static long provenCommit(ViewChanges rules, JoinState state) {
        if (state.view() == 0 && isNothingCommitted(state)) {
            return 0;
        }
        Certificate certificate = commitCertificate(rules, state);
        return certificate == null ? -1 : certificate.seq();
    }

    private static boolean isNothingCommitted(JoinState state) {
        return state.certificateView() == -1
                && state.committed().seq() == 0
                && state.evidence().isEmpty();
    }

    /** The answer's certificate if it proves a commit in the answer's view: {@code nV - u} CommitVotes. */
    private static Certificate commitCertificate(ViewChanges rules, JoinState state) {
        if (state.certificateView() != state.view() || state.committed().seq() <= 0) {
            return null;
        }
        Certificate certificate = new Certificate(state.view(), state.committed(), state.evidence());
        return rules.isCommitted(certificate) ? certificate : null;
    }
}
