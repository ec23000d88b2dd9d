package io.eve.verify.quorum;

import io.eve.execution.Token;
import io.eve.merkle.Digest;
import io.eve.protocol.Message;
import io.eve.protocol.Message.CommitVote;
import io.eve.protocol.Message.NewView;
import io.eve.protocol.Message.Prepare;
import io.eve.protocol.Message.ViewChange;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The view-change rules of Eve §6.1 (docs/quorum.md, "View change"), so that the leader that builds a
 * {@link NewView} and every verifier that checks one compute the same thing: which certificates are valid,
 * and which start point a set of {@link ViewChange} messages chooses. Its one piece of state is which
 * verifiers rejoined, in which view, and what they said they adopted (docs/quorum.md, "Rejoining", rule F).
 * Owned by the verifier's protocol thread.
 */
final class ViewChanges {
    /** The start point "batch 0": the initial state, which every replica holds without agreement. */
    static final Token ORIGIN = Token.of(0, Digest.ZERO, Digest.ZERO, Digest.ZERO);

    /**
     * The certificate view of a {@code ViewChange} from a verifier that restarted without its state: it
     * asks for a view change but knows nothing, so it never counts towards the {@code nV - u}.
     */
    static final long RECOVERING = -2;

    private final QuorumConfig config;
    private final Evidence evidence;
    /** Per verifier that rejoined: which of its view changes count (docs/quorum.md, "Rejoining", rule F). */
    private final Map<Integer, Floor> rejoinFloors = new TreeMap<>();

    ViewChanges(QuorumConfig config, Evidence evidence) {
        this.config = config;
        this.evidence = evidence;
    }

    /** A view change with the certificate it carries (null: none). */
    record Checked(int origin, ViewChange change, Certificate certificate) {}

    /**
     * The view change inside {@code form} if it checks out: sent by a verifier, and carrying no
     * certificate or a valid one; otherwise {@code null}.
     */
    Checked check(Message form) {
        Evidence.Opened opened = evidence.open(form);
        if (opened == null
                || !(opened.message() instanceof ViewChange change)
                || change.verifier() != opened.origin()
                || !config.isVerifier(opened.origin())) {
            return null;
        }
        Floor floor = rejoinFloors.get(opened.origin());
        if (!isRecovering(change) && floor != null && !floor.counts(change)) {
            return null; // docs/quorum.md, "Rejoining": may predate the sender's restart
        }
        if (change.certificate().seq() == 0) {
            return change.evidence().isEmpty() ? new Checked(opened.origin(), change, null) : null;
        }
        if (change.certificateView() < 0 || change.certificateView() >= change.newView()) {
            return null;
        }
        Certificate certificate = new Certificate(change.certificateView(), change.certificate(), change.evidence());
        return isValid(certificate) ? new Checked(opened.origin(), change, certificate) : null;
    }

    static boolean isRecovering(ViewChange change) {
        return change.certificateView() == RECOVERING;
    }

    /**
     * {@code verifier} restarted and asked this one where it is, in {@code view} ({@code changing}: while it
     * leaves it), with {@code nonce}: no view change of it counts from now on (docs/quorum.md, "Rejoining", rule
     * F), since one that it sent before the restart may still be on its way, until that incarnation says what it
     * did ({@link #onAdopted}, {@link #onAdoptedNothing}, {@link #onTookNoPartBelow}). A filter already set for
     * that nonce stays while this verifier changes view.
     *
     * <p>Nonces are ordered: each start of a process draws one above those of its earlier starts (docs/quorum.md,
     * "Rejoining", "Ordered incarnations"). A query with a nonce below the one a filter was set for comes from an
     * earlier incarnation than that one, delivered late: it changes nothing, and is not to be answered (an answer
     * would let that dead incarnation's announcement, if it is on its way too, move the filter back).
     *
     * @return false for such a late query of an earlier incarnation
     */
    boolean onRejoin(int verifier, long view, long nonce, boolean changing) {
        Floor floor = rejoinFloors.get(verifier);
        if (floor != null && nonce < floor.nonce) {
            return false;
        }
        if (floor != null && floor.nonce == nonce && (floor.announced() || changing)) {
            // A query still on its way after the incarnation said what it did; or, while this verifier changes
            // view, an answer the joiner cannot adopt from: the filter stays as it is, if there is one.
            return true;
        }
        if (floor == null || floor.nonce != nonce || floor.view < view) {
            long highest = floor == null ? view : Math.max(view, floor.view);
            rejoinFloors.put(verifier, new Floor(highest, nonce, Long.MAX_VALUE, -1));
        }
        return true;
    }

    /**
     * The incarnation of {@code verifier} that asked with {@code nonce} adopted {@code committed} in
     * {@code view}: before its restart it was prepared for no batch of that view above {@code committed + D}
     * and pre-prepared none above {@code committed + 2D} ({@code D} the agreement depth), so its view change
     * also counts with a certificate of that view from batch {@code committed + 2D} on (docs/quorum.md,
     * "Rejoining", rule F, and "Pipelined agreement"). Ignored unless it is the incarnation last answered, in
     * that view or a later one (a late query of the joiner may have been answered after the view changed:
     * the adoption still bounds what its earlier lives did, by every other verifier's answer).
     */
    void onAdopted(int verifier, long nonce, long view, long committed) {
        Floor floor = rejoinFloors.get(verifier);
        if (floor != null && floor.nonce == nonce && floor.view >= view && floor.anyThrough < 0) {
            rejoinFloors.put(
                    verifier,
                    new Floor(
                            view,
                            nonce,
                            Math.min(floor.countsFrom, committed + 2L * config.agreementDepth()),
                            floor.anyThrough));
        }
    }

    /**
     * The incarnation of {@code verifier} that asked with {@code nonce} took part, and will take part, in no view
     * below {@code view}, which is above every view its earlier lives entered (docs/quorum.md, "Counting again
     * without a rejoin"): a view change of it for a view up to {@code view} counts whatever it reports (that
     * incarnation voted in no view below it), and one for a later view counts with a certificate of {@code view}
     * or later (its earlier lives held none). Ignored if another incarnation asked here last.
     */
    void onTookNoPartBelow(int verifier, long nonce, long view) {
        Floor floor = rejoinFloors.get(verifier);
        if (floor != null && floor.nonce != nonce) {
            return;
        }
        long highest = floor == null || floor.anyThrough < 0 ? view : Math.max(view, floor.anyThrough);
        rejoinFloors.put(verifier, new Floor(highest, nonce, 0, highest));
    }

    /**
     * The incarnation of {@code verifier} that asked with {@code nonce} restarted from its memory and did not
     * rejoin: it took part in no view since its restart, and its view changes report the memory, which covers
     * every vote of its earlier life, so they count as anyone's (docs/quorum.md, "Rejoining", rule F, and
     * "Durable replicas and verifiers"). Ignored unless it is the incarnation last answered.
     */
    void onAdoptedNothing(int verifier, long nonce) {
        Floor floor = rejoinFloors.get(verifier);
        if (floor != null && floor.nonce == nonce) {
            // Kept, counting everything, so that a query of that incarnation still on its way sets no filter.
            rejoinFloors.put(verifier, new Floor(floor.view, nonce, 0, Long.MAX_VALUE));
        }
    }

    /**
     * Rule F for one verifier: the view it was answered in, the nonce of the incarnation that asked, the first
     * batch of that view whose certificate counts (none until that incarnation said what it adopted), and the
     * highest view for which any view change of it counts (-1: none; "Counting again without a rejoin").
     */
    private record Floor(long view, long nonce, long countsFrom, long anyThrough) {
        /** Until the incarnation said what it did, none counts: one of an earlier life may still arrive. */
        boolean counts(ViewChange change) {
            if (!announced()) {
                return false;
            }
            return change.newView() <= anyThrough
                    || change.certificateView() > view
                    || (change.certificateView() == view && change.certificate().seq() >= countsFrom);
        }

        /** Whether the incarnation said what it adopted or that it took part in no view below one. */
        boolean announced() {
            return countsFrom != Long.MAX_VALUE || anyThrough >= 0;
        }
    }

    /** Eve §6.1: {@code nV - u} distinct verifiers vouch for the token in that view. */
    boolean isValid(Certificate certificate) {
        return vouching(certificate, false) >= config.agreementQuorum();
    }

    /** {@code nV - u} distinct verifiers sent {@code CommitVote} for the token in that view: it committed. */
    boolean isCommitted(Certificate certificate) {
        return vouching(certificate, true) >= config.agreementQuorum();
    }

    private int vouching(Certificate certificate, boolean commitVotesOnly) {
        Set<Integer> vouching = new HashSet<>();
        for (Message form : certificate.evidence()) {
            Evidence.Opened opened = evidence.open(form);
            if (opened != null
                    && config.isVerifier(opened.origin())
                    && (!commitVotesOnly || opened.message() instanceof CommitVote)
                    && supports(opened, certificate)) {
                vouching.add(opened.origin());
            }
        }
        return vouching.size();
    }

    private static boolean supports(Evidence.Opened opened, Certificate certificate) {
        if (opened.message() instanceof Prepare prepare) {
            return prepare.verifier() == opened.origin()
                    && prepare.view() == certificate.view()
                    && prepare.token().matches(certificate.token());
        }
        if (opened.message() instanceof CommitVote vote) {
            return vote.verifier() == opened.origin()
                    && vote.view() == certificate.view()
                    && vote.token().matches(certificate.token());
        }
        return false;
    }

    /**
     * The view changes for {@code view} in {@code forms} that check out, one per verifier (the first),
     * in the order given.
     */
    List<Checked> checkAll(List<Message> forms, long view) {
        Map<Integer, Checked> byOrigin = new TreeMap<>();
        for (Message form : forms) {
            Checked checked = check(form);
            if (checked != null && checked.change().newView() == view && !isRecovering(checked.change())) {
                byOrigin.putIfAbsent(checked.origin(), checked);
            }
        }
        return new ArrayList<>(byOrigin.values());
    }

    /**
     * Eve §6.1 and docs/quorum.md: the new view starts from the certificate of the latest view, the highest
     * batch among those (then by digest, though two valid certificates for one batch and view always hold
     * the same token); with no certificate, from the initial state.
     */
    static Certificate choose(List<Checked> changes) {
        Certificate best = null;
        for (Checked checked : changes) {
            Certificate candidate = checked.certificate();
            if (candidate != null
                    && (candidate.isAbove(best)
                            || (best != null
                                    && candidate.seq() == best.seq()
                                    && candidate.view() == best.view()
                                    && candidate
                                                    .token()
                                                    .digest()
                                                    .compareTo(best.token().digest())
                                            > 0))) {
                best = candidate;
            }
        }
        return best;
    }

    static Token startOf(Certificate chosen) {
        return chosen == null ? ORIGIN : chosen.token();
    }
}
