package io.eve.verify.quorum;

import io.eve.protocol.Message;
import io.eve.protocol.Message.CommitVote;
import io.eve.protocol.Message.NewView;
import io.eve.protocol.Message.Prepare;
import io.eve.protocol.Message.ViewChange;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The view-change half of a {@link Verifier} (Eve §6.1; docs/quorum.md, "View change" and "Restarts"): the
 * current view, leaving it, collecting {@code ViewChange} messages, building (as leader) or checking a
 * {@code NewView}, entering the new view, and the recovery of a verifier that restarted without its state.
 * The pure rules (which certificates are valid, which start a set of view changes chooses) are
 * {@link ViewChanges}; the normal case stays in the {@link Verifier}, which this driver calls back through
 * {@link Host} when a view is left or entered.
 *
 * <p>Not thread-safe: the verifier's protocol thread calls it.
 */
final class ViewChangeDriver {
    private static final Logger LOG = LoggerFactory.getLogger(ViewChangeDriver.class);
    private static final int MAX_TIMEOUT_DOUBLINGS = 6;
    /** Back-offs after view changes that turned out unnecessary: at most twice the estimate (decision 0028). */
    private static final int MAX_UNNECESSARY_DOUBLINGS = 1;
    /** Commits after which one such back-off is undone. */
    private static final int DECAY_COMMITS = 512;
    /** Until its first commit a verifier waits this many view timeouts: the cluster is still warming up. */
    static final int STARTUP_GRACE = 4;

    /** What the driver needs from the normal case of its verifier. */
    interface Host {
        /** The highest certificate this verifier holds, or null. */
        Certificate best();

        /** This verifier stops taking part in its view: forget the batches in progress. */
        void onLeaveView();

        /** The new view starts from {@code chosen} (null: the initial state). */
        void onEnterView(long view, Certificate chosen);

        /** To every verifier, this one included (after the current event). */
        void broadcastVerifiers(Message message);

        /**
         * This verifier restarted from its memory and did not rejoin within a view timeout: called just before its
         * view change reporting the memory.
         */
        void onRejoinAbandoned();

        /**
         * Whether {@link #best()} covers everything this verifier voted for, so its view changes may report
         * it: false after a rejoin until it holds a certificate of a later view (docs/quorum.md, "Rejoining").
         */
        boolean reportsCertificate();

        /**
         * While this verifier restarted without its memory: a view at least as high as every view its earlier
         * lives entered, from the others' answers to its query ({@link Long#MAX_VALUE} until enough answered).
         */
        long earlierViewsBound();

        /**
         * This incarnation, restarted without its memory, takes part in no view below {@code view} from now on,
         * and {@code entered} it by a {@code NewView}: told to the others before its view change or first vote
         * (docs/quorum.md, "Counting again without a rejoin").
         */
        void onTookNoPartBelow(long view, boolean entered);
    }

    private final QuorumConfig config;
    private final Refusals refusals;
    private final ViewChanges rules;
    private final Outbox outbox;
    private final Host host;
    private final int self;
    private final String name;

    private long view;
    private boolean changing;
    private long target;
    private long changeStartedAt;
    private int doublings;
    /** How long agreement waits on pending batches between two commits (decision 0028). */
    private final LatencyEstimate progress;

    private final java.util.SplittableRandom random;
    private long jitter;
    private boolean everCommitted;
    private final NavigableMap<Long, Map<Integer, Message>> viewChanges = new TreeMap<>();
    private final Map<Integer, Long> highestChangeSeen = new TreeMap<>();
    private NewView sentNewView;
    private ViewChange myChange;
    private final Set<Integer> heardInView = new HashSet<>();
    private long viewChangesStarted;
    /** Why this verifier last left a view ({@code null}: never). */
    private String lastLeaveReason;

    private long rejectedNewViews;
    private boolean recovering;
    private long lastRecoveryRequest = Long.MIN_VALUE / 2;
    private final Map<Integer, Long> viewsSeen = new TreeMap<>();
    /** The view a durable verifier remembered from its last life, -1 without one. */
    private long remembered = -1;
    /** While recovering without a memory: per other verifier, its view change for the highest view seen. */
    private final Map<Integer, SeenChange> othersChanges = new TreeMap<>();
    /** The view of the last view change this verifier reported from the others' ("Counting again"), or -1. */
    private long learnedTarget = -1;

    private ViewChange learnedChange;
    /** The view changes this verifier sent in this life, for views it has not entered (see onNewView). */
    private final Set<ViewChange> sentChanges = new HashSet<>();

    private long lastRefusedView = -1;
    /** The view change target at which this verifier last held back from trying the next view (logged once). */
    private long heldAt = -1;

    ViewChangeDriver(
            QuorumConfig config,
            ViewChanges rules,
            Outbox outbox,
            Host host,
            boolean recovering,
            long randomSeed,
            Refusals refusals) {
        this.config = config;
        this.refusals = refusals;
        this.rules = rules;
        this.outbox = outbox;
        this.host = host;
        this.self = config.self();
        this.name = "verifier " + self;
        this.recovering = recovering;
        this.progress = new LatencyEstimate(
                config.viewTimeoutNanos(),
                config.viewTimeoutNanos() << MAX_TIMEOUT_DOUBLINGS,
                MAX_UNNECESSARY_DOUBLINGS,
                DECAY_COMMITS);
        this.random = new java.util.SplittableRandom(randomSeed ^ (0x9E3779B97F4A7C15L * (self + 1)));
        drawJitter();
    }

    /** A fresh random extra of up to a quarter of the configured view timeout, so timers do not fire together. */
    private void drawJitter() {
        jitter = random.nextLong(Math.max(1, config.viewTimeoutNanos() / 4));
    }

    long view() {
        return view;
    }

    boolean changing() {
        return changing;
    }

    /** The highest view this verifier has reached: the view it is leaving for while it changes view. */
    long reached() {
        return changing ? Math.max(view, target) : view;
    }

    boolean recovering() {
        return recovering;
    }

    /**
     * The verifier restarted from its memory: it took part in views up to {@code view} before (docs/quorum.md,
     * "Durable verifiers"). It never takes part in one of them again, except by rejoining the others' view.
     */
    void remember(long view) {
        remembered = view;
    }

    /** The highest view this verifier entered or left for, in this life or (remembered) an earlier one. */
    long highestView() {
        return Math.max(remembered, changing ? target : view);
    }

    long viewChangesStarted() {
        return viewChangesStarted;
    }

    /** Why this verifier last left a view for a newer one, as logged; {@code null} if it never did. */
    String lastLeaveReason() {
        return lastLeaveReason;
    }

    long rejectedNewViews() {
        return rejectedNewViews;
    }

    /** The view of the last view change it reported from the others' while recovering, or -1. */
    long learnedTarget() {
        return learnedTarget;
    }

    /**
     * The view timeout (decision 0028): the estimate of how long agreement waits between commits (mean plus four
     * deviations, at least the configured {@code viewTimeoutNanos}), doubled per view change found unnecessary
     * (decaying back slowly), plus a random quarter of the configured timeout drawn per view, doubled per
     * consecutive view change; before this verifier's first commit at least {@link #STARTUP_GRACE} times the
     * configured timeout. At most 64 times the configured timeout in all.
     */
    long timeoutNanos() {
        long base = progress.timeoutNanos() + jitter;
        if (!everCommitted) {
            base = Math.max(base, STARTUP_GRACE * config.viewTimeoutNanos());
        }
        return Math.min(progress.ceilingNanos(), base << doublings);
    }

    /**
     * How long a new view may take to start before the next one is tried: the configured view timeout, doubled
     * per consecutive view change. Not the adaptive stall timeout: its back-off and start-up grace are about a
     * primary that may be slow, whereas a view that does not start usually has a dead leader, and every
     * doubling here delays the failover past it.
     */
    long viewStartTimeoutNanos() {
        return config.viewTimeoutNanos() << doublings;
    }

    /**
     * A batch committed after agreement waited {@code waitedNanos} on pending batches since the last progress:
     * the next view change waits the base timeout again, and the estimate learns the wait.
     */
    void onProgress(long waitedNanos) {
        doublings = 0;
        everCommitted = true;
        progress.sample(waitedNanos);
        progress.onProgress();
    }

    /** The last view change was not needed (every execution replica is alive in the new view): wait longer. */
    void onUnnecessaryViewChange() {
        progress.backOff();
        LOG.info(
                "{}: the change to view {} found every execution replica alive; view timeout now {} ms",
                name,
                view,
                timeoutNanos() / 1_000_000);
    }

    /**
     * Whether a normal-case message of {@code messageView} from {@code from} belongs to the view this verifier
     * takes part in; notes that {@code from} is in this verifier's view either way.
     */
    boolean inView(long messageView, int from) {
        if (messageView == view) {
            heardInView.add(from);
        }
        return messageView == view && !changing;
    }

    /** A tick: a restarted verifier asks for a view; a new view that did not start in time is skipped. */
    void onTick(long now) {
        if (recovering) {
            requestRecovery(now);
            return;
        }
        long timeout = viewStartTimeoutNanos();
        if (changing && now - changeStartedAt > timeout) {
            if (verifiersAtOrAbove(target) < config.agreementQuorum()) {
                // PBFT's rule: a verifier tries the next view only once nV - u (itself included) asked for this one
                // or a later one. Alone it would run ahead of the others for good, its view changes for views
                // nobody else reached, while the others' new views arrive below its target and are ignored.
                if (heldAt != target) {
                    heldAt = target;
                    LOG.info(
                            "{}: view {} did not start within {} ms; {} of the {} verifiers asked for it or a later"
                                    + " one: waiting for the others before trying view {}",
                            name,
                            target,
                            timeout / 1_000_000,
                            verifiersAtOrAbove(target),
                            config.agreementQuorum(),
                            target + 1);
                }
                return;
            }
            LOG.warn(
                    "{}: view {} did not start within {} ms; trying view {}",
                    name,
                    target,
                    timeout / 1_000_000,
                    target + 1);
            startViewChange(target + 1, "the new view did not start", now);
        }
    }

    /** Sends again what a lost message may have kept from others: the own view change or new view. */
    void retransmit() {
        if (changing) {
            if (myChange != null) {
                sendToOtherVerifiers(myChange);
            }
            return;
        }
        if (sentNewView != null && sentNewView.view() == view) {
            for (int verifier : config.verifiers()) {
                if (verifier != self && !heardInView.contains(verifier)) {
                    outbox.send(verifier, sentNewView);
                }
            }
        }
    }

    /**
     * The restarted verifier first tries to rejoin the others' view (docs/quorum.md, "Rejoining"): it asks
     * for a new view only a view timeout after {@code now}, if it has not rejoined by then.
     */
    void deferRecovery(long now) {
        lastRecoveryRequest = now;
    }

    /**
     * While recovering: the views other verifiers are in, from what they send ({@code form}: the message as it
     * came, its evidence form for a view change).
     */
    void noteView(int from, Message message, Message form, long now) {
        if (!config.isVerifier(from) || from == self) {
            return;
        }
        long seen = -1;
        if (message instanceof Prepare prepare) {
            seen = prepare.view();
        } else if (message instanceof CommitVote vote) {
            seen = vote.view();
        } else if (message instanceof ViewChange change) {
            seen = change.newView() - 1;
            if (remembered < 0 && !ViewChanges.isRecovering(change)) {
                SeenChange kept = othersChanges.get(from);
                if (kept == null || kept.view() < change.newView()) {
                    othersChanges.put(from, new SeenChange(change.newView(), form));
                }
                learnFromOthers(now);
            }
        }
        noteView(from, seen);
    }

    /**
     * While recovering: verifier {@code from} is in view {@code seen} (an answer to this incarnation's query, or
     * what it sent); a message that tells no view ({@code seen} -1) is not one, or a silent verifier would count.
     */
    void noteView(int from, long seen) {
        if (seen >= 0 && config.isVerifier(from) && from != self) {
            viewsSeen.merge(from, seen, Math::max);
        }
    }

    /** A view change another verifier sent for {@code view}, in the form it came in. */
    private record SeenChange(long view, Message form) {}

    /**
     * docs/quorum.md, "Counting again without a rejoin": once {@code nV - u} other verifiers sent view changes
     * for view {@code t} or later, {@code t} above every view an earlier life of this one entered, this
     * verifier reports for {@code t} the highest valid certificate among them. Each of those view changes covers
     * everything its sender prepared below its view; a batch committed below {@code t} was prepared by {@code nV
     * - u} verifiers, {@code r + 1} of them among the senders, one correct: so the report covers every commit
     * below {@code t}, as the memory this verifier lost would have.
     */
    private void learnFromOthers(long now) {
        List<Long> targets = new ArrayList<>();
        for (SeenChange seen : othersChanges.values()) {
            targets.add(seen.view());
        }
        int quorum = config.agreementQuorum();
        if (targets.size() < quorum) {
            return;
        }
        targets.sort(Comparator.reverseOrder());
        long target = targets.get(quorum - 1);
        if (target <= host.earlierViewsBound() || target <= learnedTarget) {
            return;
        }
        Certificate highest = null;
        for (SeenChange seen : othersChanges.values()) {
            ViewChanges.Checked checked = rules.check(seen.form());
            // A sender whose certificate does not check out is Byzantine: one of the r the intersection allows.
            if (checked != null && checked.change().newView() >= target && checked.certificate() != null) {
                if (checked.certificate().isAbove(highest)) {
                    highest = checked.certificate();
                }
            }
        }
        if (highest != null && highest.view() >= target) {
            return; // view t started already: a certificate of it is no report for t; wait for a later view
        }
        learnedTarget = target;
        learnedChange = highest == null
                ? new ViewChange(target, self, -1, ViewChanges.ORIGIN, List.of())
                : new ViewChange(target, self, highest.view(), highest.token(), highest.evidence());
        LOG.info(
                "{}: restarted without its memory; reports for view {} the certificate {} of the others' view changes",
                name,
                target,
                highest == null ? "none" : highest.view() + "/" + highest.seq());
        host.onTookNoPartBelow(target, false);
        sentChanges.add(learnedChange);
        sendToOtherVerifiers(learnedChange);
    }

    /** Whether every other verifier sent a normal-case message of the current view since this one entered it. */
    boolean heardFromEveryVerifier() {
        for (int verifier : config.verifiers()) {
            if (verifier != self && !heardInView.contains(verifier)) {
                return false;
            }
        }
        return true;
    }

    /** While recovering: sends again the view change reported from the others', if any. */
    void retransmitLearned() {
        if (recovering && learnedChange != null) {
            sendToOtherVerifiers(learnedChange);
        }
    }

    /**
     * A restarted verifier forgot what it prepared, so it must not report a certificate (a missing one could
     * let a new view start below a committed batch): it asks the others for a new view and joins that.
     */
    private void requestRecovery(long now) {
        if (remembered >= 0 && now - lastRecoveryRequest >= config.viewTimeoutNanos()) {
            // Its memory covers every vote of its earlier life, so its view change counts like anyone's: the
            // way a cluster restarted as a whole, where nobody can answer a rejoin, starts a view again.
            long seen =
                    viewsSeen.values().stream().mapToLong(Long::longValue).max().orElse(-1);
            long above = Math.max(remembered, seen);
            recovering = false;
            view = above;
            LOG.info("{}: restarted from its memory (view {}); no rejoin within a view timeout", name, remembered);
            host.onRejoinAbandoned();
            startViewChange(above + 1, "restarted from its memory", now);
            return;
        }
        if (now - lastRecoveryRequest < config.viewTimeoutNanos() || viewsSeen.size() < config.responseQuorum()) {
            return;
        }
        lastRecoveryRequest = now;
        List<Long> views = new ArrayList<>(viewsSeen.values());
        views.sort(null);
        long current = views.get(views.size() - config.responseQuorum());
        sendToOtherVerifiers(new ViewChange(current + 1, self, ViewChanges.RECOVERING, ViewChanges.ORIGIN, List.of()));
    }

    /** Leaves the current view (or the view change in progress) for {@code newView}, unless already past it. */
    void startViewChange(long newView, String why, long now) {
        if (newView <= view || (changing && newView <= target)) {
            return;
        }
        LOG.warn("{}: leaving view {} for view {}: {}", name, changing ? target : view, newView, why);
        viewChangesStarted++;
        lastLeaveReason = why;
        changing = true;
        target = newView;
        changeStartedAt = now;
        doublings = Math.min(MAX_TIMEOUT_DOUBLINGS, doublings + 1);
        host.onLeaveView();
        Certificate best = host.best();
        ViewChange change = !host.reportsCertificate()
                ? new ViewChange(newView, self, ViewChanges.RECOVERING, ViewChanges.ORIGIN, List.of())
                : best == null
                        ? new ViewChange(newView, self, -1, ViewChanges.ORIGIN, List.of())
                        : new ViewChange(newView, self, best.view(), best.token(), best.evidence());
        myChange = change;
        sentChanges.add(change);
        host.broadcastVerifiers(change);
    }

    /** @return false if {@code form} is not a valid view change from {@code from} */
    boolean onViewChange(int from, Message form, long now) {
        ViewChanges.Checked checked = rules.check(form);
        if (checked == null || checked.origin() != from) {
            return false;
        }
        long newView = checked.change().newView();
        if (newView - (changing ? target : view) > config.bounds().views()) {
            // docs/quorum.md, "Bounded memory": it would be kept until that view.
            refusals.add(Refusals.Reason.FUTURE_VIEW);
            return true;
        }
        if (newView <= view) {
            return true;
        }
        if (!ViewChanges.isRecovering(checked.change())) {
            viewChanges.computeIfAbsent(newView, v -> new TreeMap<>()).putIfAbsent(from, form);
        }
        highestChangeSeen.merge(from, newView, Math::max);
        joinIfOthersMovedOn(now);
        if (!ViewChanges.isRecovering(checked.change())) {
            tryNewView(newView);
        }
        return true;
    }

    /** This verifier and the others whose view changes seen here ask for {@code newView} or a later view. */
    private int verifiersAtOrAbove(long newView) {
        int count = 1;
        for (Map.Entry<Integer, Long> entry : highestChangeSeen.entrySet()) {
            if (entry.getKey() != self && entry.getValue() >= newView) {
                count++;
            }
        }
        return count;
    }

    /** PBFT's rule with r + 1 for f + 1: follow a view change that a correct verifier has begun. */
    private void joinIfOthersMovedOn(long now) {
        long current = changing ? target : view;
        List<Long> ahead = new ArrayList<>();
        for (Map.Entry<Integer, Long> entry : highestChangeSeen.entrySet()) {
            if (entry.getKey() != self && entry.getValue() > current) {
                ahead.add(entry.getValue());
            }
        }
        if (ahead.size() >= config.responseQuorum()) {
            ahead.sort(null);
            startViewChange(ahead.get(ahead.size() - config.responseQuorum()), "other verifiers moved on", now);
        }
    }

    private void tryNewView(long newView) {
        if (!changing || target != newView || config.leader(newView) != self) {
            return;
        }
        List<Message> forms =
                new ArrayList<>(viewChanges.getOrDefault(newView, Map.of()).values());
        List<ViewChanges.Checked> checked = rules.checkAll(forms, newView);
        if (checked.size() < config.agreementQuorum()) {
            return;
        }
        Certificate chosen = ViewChanges.choose(checked);
        NewView message = new NewView(newView, self, forms, ViewChanges.startOf(chosen));
        sentNewView = message;
        sendToOtherVerifiers(message);
        enterView(newView, chosen);
    }

    void onNewView(int from, NewView message) {
        if (from != config.leader(message.view())
                || message.view() < view
                || (message.view() == view && !changing)
                || (changing && message.view() < target)) {
            return;
        }
        boolean fresh = recovering;
        if (fresh && !mayEnterAfterRestart(message.view())) {
            if (message.view() != lastRefusedView) {
                lastRefusedView = message.view();
                LOG.info(
                        "{}: restarted; not entering view {}, which an earlier life may have taken part in",
                        name,
                        message.view());
            }
            return;
        }
        List<ViewChanges.Checked> checked = rules.checkAll(message.viewChanges(), message.view());
        for (ViewChanges.Checked change : checked) {
            if (change.origin() == self && !sentChanges.contains(change.change())) {
                // An earlier life's, delivered late: it may not cover what this life voted since.
                rejectedNewViews++;
                LOG.warn(
                        "{}: refusing the new view {} from {}: it holds a view change of this verifier that this"
                                + " life did not send",
                        name,
                        message.view(),
                        from);
                return;
            }
        }
        Certificate chosen = ViewChanges.choose(checked);
        if (checked.size() < config.agreementQuorum()
                || !ViewChanges.startOf(chosen).matches(message.start())) {
            rejectedNewViews++;
            LOG.warn(
                    "{}: refusing the new view {} from {}: {} valid view changes, start {} where they give {}",
                    name,
                    message.view(),
                    from,
                    checked.size(),
                    message.start(),
                    ViewChanges.startOf(chosen));
            return;
        }
        if (fresh) {
            // Told before the first vote of the new view (the start's Prepare that enterView sends).
            if (remembered >= 0) {
                host.onRejoinAbandoned(); // its view changes report its memory: they count as anyone's
            } else {
                host.onTookNoPartBelow(message.view(), true);
            }
        }
        enterView(message.view(), chosen);
    }

    /**
     * Whether a restarted verifier may enter {@code newView} by a {@code NewView}: only above every view an
     * earlier life of it may have taken part in (it would not know what it voted there), and not below a view
     * it reported for from the others' view changes.
     */
    private boolean mayEnterAfterRestart(long newView) {
        long bound = remembered >= 0 ? remembered : host.earlierViewsBound();
        return newView > bound && newView >= learnedTarget;
    }

    /**
     * A restarted verifier takes part in {@code adopted}, the view every other verifier is in
     * (docs/quorum.md, "Rejoining"), without a view change.
     */
    void rejoin(long adopted, long committedSeq, long waitedNanos) {
        LOG.info(
                "{}: rejoins view {} at batch {} without a view change, {} ms after its start",
                name,
                adopted,
                committedSeq,
                waitedNanos / 1_000_000);
        recovering = false;
        view = adopted;
        changing = false;
        heardInView.clear();
        viewChanges.headMap(adopted, true).clear();
    }

    /** Eve §6.1: the new view commits its start point and tells the execution replicas to roll back to it. */
    private void enterView(long newView, Certificate chosen) {
        LOG.info("{}: view {} starts from batch {}", name, newView, chosen == null ? 0 : chosen.seq());
        recovering = false;
        view = newView;
        changing = false;
        heardInView.clear();
        viewChanges.headMap(newView, true).clear();
        sentChanges.removeIf(change -> change.newView() <= newView);
        drawJitter();
        host.onEnterView(newView, chosen);
    }

    private void sendToOtherVerifiers(Message message) {
        for (int verifier : config.verifiers()) {
            if (verifier != self) {
                outbox.send(verifier, message);
            }
        }
    }
}
