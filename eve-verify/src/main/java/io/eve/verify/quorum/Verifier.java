package io.eve.verify.quorum;

import io.eve.execution.Token;
import io.eve.protocol.Message;
import io.eve.protocol.Message.Authenticated;
import io.eve.protocol.Message.CommitVote;
import io.eve.protocol.Message.JoinQuery;
import io.eve.protocol.Message.JoinState;
import io.eve.protocol.Message.NewView;
import io.eve.protocol.Message.ObjectDigests;
import io.eve.protocol.Message.Prepare;
import io.eve.protocol.Message.Suspect;
import io.eve.protocol.Message.Verify;
import io.eve.protocol.Message.VerifyResponse;
import io.eve.protocol.Message.ViewChange;
import io.eve.protocol.Message.ViewQuery;
import io.eve.protocol.Message.ViewReport;
import io.eve.verify.diagnosis.DigestReports;
import io.eve.verify.diagnosis.Divergence;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A verification replica of Eve's asynchronous quorum protocol (Eve §6.1, docs/quorum.md) as a
 * deterministic state machine: messages and ticks come in with the time as an argument, messages go out
 * through an {@link Outbox}. No threads, sockets or clocks inside.
 *
 * <p>Normal case: {@code max(u, r) + 1} matching {@code Verify} whose previous-token digest is the token
 * this verifier committed or pre-prepared for the batch before: pre-prepared, send {@code Prepare}. {@code nV - u}
 * matching {@code Prepare}: prepared, send {@code CommitVote}. {@code nV - u} matching {@code CommitVote}:
 * committed, send {@code VerifyResponse} to the execution replicas. Agreement is pipelined: a batch is
 * pre-prepared on the token this verifier pre-prepared (or committed) for the batch before, up to the pipeline
 * depth past its last commit (docs/quorum.md, "Pipelined agreement").
 * When agreement stalls, or the tokens of a batch can no longer reach a quorum, the verifiers change
 * view, which {@link ViewChangeDriver} carries out with the rules of {@link ViewChanges}; the new view
 * starts from the best certificate and rotates the primary.
 *
 * <p>Not thread-safe: one protocol thread calls it.
 */
public final class Verifier {
    private static final Logger LOG = LoggerFactory.getLogger(Verifier.class);
    private static final int KEPT_COMMITS = 256;
    /**
     * A certificate waits for the last {@code Prepare}s (instead of checking signatures) while they came at most
     * this long after the first {@code nV - u} lately; the wait itself ends at the first tick this long after the
     * quorum (a tick every 5 ms in the runtime: ending waits at any tick penalised waits of a few microseconds,
     * and with a batch every few milliseconds the gap never fell below this bound again).
     */
    static final long PREPARE_WAIT_NANOS = 10_000_000;

    private static final long PREPARES_GAP_HALF_LIFE_NANOS = 1_000_000_000;

    private final QuorumConfig config;
    private final Refusals refusals;
    private final Outbox outbox;
    private final Outbox network;
    private final VerifierMemory memory;
    /** Messages that wait until the record they depend on is durable, in the order they were sent. */
    private final Deque<Held> held = new ArrayDeque<>();

    private VerifierMemory.Remembered saved;
    private long savedVersion;
    private long durableVersion;
    private final Evidence evidence;
    private final ViewChangeDriver views;
    private final ViewChanges rules;
    private final Rejoin rejoin;
    private final ExtraProtection protection;
    private final int self;
    private final Deque<Message> own = new ArrayDeque<>();

    private long committedSeq;
    private Token committedToken;
    private Token start = ViewChanges.ORIGIN;
    private final NavigableMap<Long, Token> recentCommits = new TreeMap<>();
    private final NavigableMap<Long, Slot> slots = new TreeMap<>();
    private Certificate best;
    /** The proof of the last commit in this view ({@code nV - u} CommitVotes), or null: told to joiners. */
    private Certificate committedCertificate;
    /**
     * Votes for {@link #committedCertificate}'s token that came after the commit, by verifier: spares for a piece
     * of the proof whose signature does not verify when a joiner asks (docs/quorum.md, "Signed evidence").
     */
    private final Map<Integer, Message> lateVotes = new TreeMap<>();
    /** After a rejoin without a view change: the view it adopted; else -1. */
    private long rejoinView = -1;
    /** After a rejoin: the last batch of {@link #rejoinView} it may have pre-prepared before its restart. */
    private long abstainThrough = -1;
    /** After a rejoin: what it adopted, told to the verifiers that answered (docs/quorum.md, rule F). */
    private JoinState adoption;
    /**
     * After a restart from its memory without a rejoin: that it adopted nothing, told to the verifiers that
     * answered, so that its view changes count there (docs/quorum.md, "Rejoining", rule F).
     */
    private JoinState adoptedNothing;
    /**
     * After a restart without its memory, once it reported from the others' view changes or entered a view by a
     * {@code NewView}: that it takes part in no view below one, told to the others ("Counting again").
     */
    private JoinState noPartBelow;
    /** The view it entered by a {@code NewView} after such a restart, or -1 (rule R for that case). */
    private long freshView = -1;

    private long startedAt;
    private long lastProgress;
    private long lastRetransmit;
    private long now;
    private final Set<Integer> suspects = new HashSet<>();
    private long ignored;
    private long staleJoinQueries;
    private boolean startConfirmed = true;
    private final Map<Integer, Message> startPrepares = new TreeMap<>();
    /** Whether this verifier left its view because tokens differed (a view change with a cause it saw). */
    private boolean mismatchSeen;
    /** After a view change without a seen cause: whether to find out if it was needed (decision 0028). */
    private boolean judgingChange;
    /** The execution replicas that sent a token of this view, while {@link #judgingChange}. */
    private final Set<Integer> aliveInView = new HashSet<>();

    private int commitsInView;
    /** The execution replicas' object digests of the first batch of a view, and the diagnoses made with them. */
    private final DigestReports reports = new DigestReports();
    /** The view whose first batch was last diagnosed, so that it is diagnosed once. */
    private long diagnosedView = -1;
    /** How long a batch takes from this verifier's first message about it to its commit (decision 0028). */
    private final LatencyEstimate commitLatency;
    /**
     * How long after the first {@code nV - u} matching {@code Prepare}s of a batch the last ones came lately: while
     * this is short, a certificate waits for them rather than check signatures (docs/quorum.md, "Signed
     * evidence", rule 2).
     */
    private final DecayingMaximum preparesGap = new DecayingMaximum(PREPARES_GAP_HALF_LIFE_NANOS);

    /**
     * A verifier that started with the cluster or, {@code recovering}, restarted with a join nonce of 0; for
     * tests that need no second restart (the runtime and the simulator draw the nonce).
     */
    public Verifier(QuorumConfig config, Outbox outbox, Evidence evidence, boolean recovering) {
        this(config, outbox, evidence, recovering, 0);
    }

    /**
     * @param recovering whether this verifier restarted without its state: it takes no part in agreement
     *     until it rejoins the others' view or a new view starts that it did not help choose (docs/quorum.md,
     *     "Rejoining" and "Restarts")
     * @param joinNonce this incarnation's number, above those of every earlier start of the process
     *     ({@code ReplicaHost.incarnation()}): its {@code JoinQuery} carries it, so that answers to an earlier incarnation's query
     *     are not taken for current ones, and a late query of an earlier incarnation is told apart
     */
    public Verifier(QuorumConfig config, Outbox outbox, Evidence evidence, boolean recovering, long joinNonce) {
        this(config, outbox, evidence, recovering, joinNonce, null);
    }

    /**
     * A verifier that keeps what it must remember in {@code memory} (docs/quorum.md, "Durable verifiers"). If
     * the memory holds a record from an earlier life, the verifier restarts from it: {@code recovering} as
     * one restarted without its state (it first tries to rejoin the others' view), but when it has not rejoined
     * within a view timeout it starts a view change above the remembered view that reports the remembered
     * certificate, which counts, so that a cluster restarted as a whole can start a new view.
     *
     * @param memory null: nothing is persisted (the verifier forgets everything when it stops)
     */
    public Verifier(
            QuorumConfig config,
            Outbox outbox,
            Evidence evidence,
            boolean recovering,
            long joinNonce,
            VerifierMemory memory) {
        this(config, outbox, evidence, recovering, joinNonce, memory, new Refusals());
    }

    /**
     * As {@link #Verifier(QuorumConfig, Outbox, Evidence, boolean, long, VerifierMemory)}, counting what it
     * refuses from its peers (docs/quorum.md, "Bounded memory") in {@code refusals}.
     */
    public Verifier(
            QuorumConfig config,
            Outbox outbox,
            Evidence evidence,
            boolean recovering,
            long joinNonce,
            VerifierMemory memory,
            Refusals refusals) {
        if (!config.hostsVerifier()) {
            throw new IllegalArgumentException("process " + config.self() + " hosts no verifier in " + config);
        }
        this.config = config;
        this.refusals = java.util.Objects.requireNonNull(refusals, "refusals");
        // Every piece of evidence leaves in its evidence form (with r >= 1 signed or tagged), retransmissions too.
        this.network =
                (to, message) -> outbox.send(to, Evidence.isEvidence(message) ? evidence.seal(message) : message);
        this.memory = memory;
        this.outbox = memory == null ? network : this::sendWhenRemembered;
        this.evidence = evidence;
        this.self = config.self();
        this.protection = new ExtraProtection(config);
        this.commitLatency = new LatencyEstimate(
                config.retransmitNanos(), Math.max(config.retransmitNanos(), config.viewTimeoutNanos() / 2), 0, 1);
        this.rules = new ViewChanges(config, evidence);
        VerifierMemory.Remembered remembered = memory == null ? null : memory.load();
        boolean restarts = recovering || remembered != null;
        this.rejoin = restarts ? new Rejoin(config, rules, joinNonce) : null;
        this.views = new ViewChangeDriver(config, rules, this.outbox, new Host(), restarts, joinNonce, refusals);
        if (remembered != null) {
            best = remembered.best();
            saved = remembered;
            views.remember(remembered.view());
        }
    }

    public void start(long nowNanos) {
        now = nowNanos;
        startedAt = nowNanos;
        lastProgress = nowNanos;
        lastRetransmit = nowNanos;
        if (rejoin != null) {
            views.deferRecovery(nowNanos);
            sendToOtherVerifiers(new JoinQuery(self, rejoin.nonce()));
        }
    }

    public long view() {
        return views.view();
    }

    /** Whether this verifier restarted without its state and waits for a new view to join. */
    public boolean recovering() {
        return views.recovering();
    }

    /**
     * Whether this verifier's view changes count towards a new view: it is not recovering, and if it restarted
     * without its state, it holds a certificate that covers what its earlier lives voted (docs/quorum.md,
     * "Rejoining", rule R). Until then it is still one of the {@code u} faults as far as view changes go.
     */
    public boolean countsInViewChanges() {
        return !views.recovering() && reportsCertificate();
    }

    private boolean reportsCertificate() {
        // docs/quorum.md, "Rejoining", rule R: before its restart it was prepared for no batch of the rejoined
        // view at or above abstainThrough (the adopted batch + 2D), so a certificate of that view from
        // abstainThrough on is at or above every token it was prepared for in either life.
        // docs/quorum.md, "Counting again without a rejoin": after entering a view by a NewView, its reports
        // count only from a certificate of that view on, which no earlier life held.
        boolean afterRejoin = rejoinView < 0
                || (best != null
                        && (best.view() > rejoinView || (best.view() == rejoinView && best.seq() >= abstainThrough)));
        return afterRejoin && (freshView < 0 || (best != null && best.view() >= freshView));
    }

    /** Whether this verifier has left its view and waits for the next one to start. */
    public boolean changingView() {
        return views.changing();
    }

    public long committedSeq() {
        return committedSeq;
    }

    /** The token this verifier committed last (the initial state's placeholder before any). */
    public Token committedToken() {
        return committedToken == null ? ViewChanges.ORIGIN : committedToken;
    }

    public long viewChangesStarted() {
        return views.viewChangesStarted();
    }

    /** Why this verifier last left a view, as its WARN line says; {@code null} if it never did. */
    public String lastViewChangeReason() {
        return views.lastLeaveReason();
    }

    /** {@code NewView} messages refused because their choice did not recompute. */
    public long rejectedNewViews() {
        return views.rejectedNewViews();
    }

    /** Whether this verifier is in the extra protection mode (Eve §6.3). */
    public boolean extraProtection() {
        return protection.active();
    }

    /** Rollbacks (view changes) this verifier ordered in the extra protection mode. */
    public long extraProtectionRollbacks() {
        return protection.rollbacks();
    }

    /** Times this verifier entered the extra protection mode. */
    public long extraProtectionEntries() {
        return protection.entries();
    }

    /** Times this verifier left the extra protection mode (a probe did not match in time). */
    public long extraProtectionExits() {
        return protection.exits();
    }

    /** What this verifier refused to keep its memory bounded, by reason (shared with its process's metrics). */
    public Refusals refusals() {
        return refusals;
    }

    /** Batches this verifier holds messages of (its current view, above its last commit): at most the window. */
    public int pendingBatches() {
        return slots.size();
    }

    /**
     * Objects this verifier named as different in first batches of a view (run sequentially) whose tokens could
     * not reach a quorum (docs/state.md, "Diagnosing a batch that still differs").
     */
    public long divergedObjects() {
        return reports.divergedObjects();
    }

    /** The last such diagnosis that compared two replicas' objects. */
    public Optional<Divergence> lastDivergence() {
        return reports.latest();
    }

    /** What the last such diagnosis said, per replica: the objects it named, or whose digests were missing. */
    public Optional<String> lastDiagnosis() {
        return reports.lastLine();
    }

    /** Messages dropped as duplicate, malformed, misattributed or out of place. */
    public long ignored() {
        return ignored;
    }

    /** Join queries not answered because they came from an earlier incarnation than one answered before. */
    public long staleJoinQueries() {
        return staleJoinQueries;
    }

    // ---- inputs --------------------------------------------------------------------------------

    public void onMessage(int from, Message message, long nowNanos) {
        now = nowNanos;
        Message form = message;
        Message inner = message;
        if (message instanceof Authenticated || message instanceof Message.Signed || Evidence.isEvidence(message)) {
            // Evidence counts only in a form that every verifier it is forwarded to can check as well (a
            // Prepare's signature is checked when it would complete a certificate: confirmed()).
            Evidence.Opened opened = evidence.claim(message);
            if (opened == null || opened.origin() != from) {
                ignored++;
                return;
            }
            inner = opened.message();
        }
        dispatch(from, inner, form);
        drainOwn();
    }

    public void onTick(long nowNanos) {
        now = nowNanos;
        boolean recovering = views.recovering();
        views.onTick(now);
        if (recovering) {
            if (views.recovering() && rejoin != null && now - lastRetransmit >= config.retransmitNanos()) {
                lastRetransmit = now;
                sendToOtherVerifiers(new JoinQuery(self, rejoin.nonce()));
                if (noPartBelow != null) {
                    sendToOtherVerifiers(noPartBelow);
                }
                views.retransmitLearned();
            }
            return;
        }
        long timeout = views.timeoutNanos();
        if (!views.changing() && (!slots.isEmpty() || !startConfirmed) && now - lastProgress > timeout) {
            startViewChange(views.view() + 1, "no batch committed for " + timeout / 1_000_000 + " ms");
        }
        if (!views.changing()) {
            stopWaitingForPrepares();
        }
        protection.onTick(now);
        if (protection.waiting() && !views.changing()) {
            advance();
        }
        if (now - lastRetransmit >= retransmitNanos()) {
            lastRetransmit = now;
            retransmit();
        }
        drainOwn();
    }

    /**
     * How often this verifier sends again what may have been lost (decision 0028): the configured period, or
     * the estimate of how long a batch takes to commit if that is longer (at most half the configured view
     * timeout). Sending again what is merely slow only adds to the load that makes it slow.
     */
    long retransmitNanos() {
        return commitLatency.timeoutNanos();
    }

    private void dispatch(int from, Message message, Message form) {
        int named = Evidence.namedSender(message);
        if (named >= 0 && named != from) {
            ignored++;
            return;
        }
        if (message instanceof JoinState state) {
            onJoinState(from, state);
            return;
        }
        if (message instanceof ViewQuery query) {
            onViewQuery(from, query);
            return;
        }
        if (views.recovering() && message instanceof JoinQuery query) {
            onJoinQuery(from, query);
            return;
        }
        if (views.recovering() && !(message instanceof NewView)) {
            views.noteView(from, message, form, now);
            return;
        }
        if (message instanceof Verify verify) {
            onVerify(from, verify);
        } else if (message instanceof ObjectDigests digests) {
            onObjectDigests(from, digests);
        } else if (!config.isVerifier(from) && !(message instanceof Suspect)) {
            ignored++;
        } else if (message instanceof Prepare prepare) {
            onPrepare(from, prepare, form);
        } else if (message instanceof CommitVote vote) {
            onCommitVote(from, vote, form);
        } else if (message instanceof ViewChange) {
            if (!views.onViewChange(from, form, now)) {
                ignored++;
            }
        } else if (message instanceof NewView newView) {
            views.onNewView(from, newView);
        } else if (message instanceof Suspect suspect) {
            onSuspect(from, suspect);
        } else if (message instanceof JoinQuery query) {
            onJoinQuery(from, query);
        } else {
            ignored++;
        }
    }

    // ---- normal case (Eve §6.1) ------------------------------------------------------------------

    private void onVerify(int from, Verify message) {
        Token token = message.token();
        if (!config.isExecutionReplica(from) || !Tokens.wellFormed(token)) {
            ignored++;
            return;
        }
        if (views.changing() || message.view() > views.view() || views.recovering() || !startConfirmed) {
            return; // the replica retransmits once this verifier is in its view
        }
        if (token.seq() == 0) {
            // A replica that restarted asks where the verifiers are.
            outbox.send(from, new VerifyResponse(views.view(), committedToken(), committedSeq == start.seq()));
            return;
        }
        if (message.view() < views.view()) {
            // The replica missed the new view: tell it where this view started.
            outbox.send(from, new VerifyResponse(views.view(), start, true));
            return;
        }
        if (beyondWindow(token.seq())) {
            return;
        }
        if (token.seq() > start.seq()) {
            protection.onVerify(from, token, now);
            judgeViewChange(from);
        }
        if (token.seq() <= committedSeq) {
            // The replica missed the VerifyResponse: the agreed token, or the latest this verifier holds.
            Token agreed = recentCommits.get(token.seq());
            if (agreed == null) {
                agreed = committedToken();
            }
            outbox.send(from, new VerifyResponse(views.view(), agreed, agreed.seq() == start.seq()));
            return;
        }
        Slot slot = slot(token.seq());
        if (slot.verifies.putIfAbsent(from, token) != null) {
            ignored++; // one Verify per replica and batch: a second, even a different one, is not counted
            return;
        }
        advance();
    }

    /**
     * docs/quorum.md, "Bounded memory": a message about a batch more than the window past the last commit is
     * refused (counted), so no peer can make this verifier keep slots without bound. A correct replica runs
     * at most the pipeline depth ahead of agreement, which the window exceeds; a verifier that fell further
     * behind catches up through the next view.
     */
    private boolean beyondWindow(long seq) {
        if (seq - committedSeq > config.bounds().batches()) {
            refusals.add(Refusals.Reason.FUTURE_BATCH);
            return true;
        }
        return false;
    }

    /** The slot of a batch; the first pending batch starts the stall timer. */
    private Slot slot(long seq) {
        if (slots.isEmpty()) {
            lastProgress = now;
        }
        return slots.computeIfAbsent(seq, s -> {
            Slot created = new Slot();
            created.createdAt = now;
            return created;
        });
    }

    /**
     * Pre-prepares the next batches, in order, as far as their Verify messages allow (docs/quorum.md,
     * "Pipelined agreement", rule P), and detects tokens that cannot agree.
     */
    private void advance() {
        long seq = committedSeq + 1;
        Token anchor = committedToken;
        while (seq - committedSeq <= config.agreementDepth()) {
            Slot slot = slots.get(seq);
            if (slot == null || abstains(seq)) {
                return;
            }
            if (slot.prePrepared == null) {
                if (!tryPrePrepare(seq, slot, anchor)) {
                    return;
                }
            }
            anchor = slot.prePrepared;
            seq++;
        }
    }

    /**
     * Pre-prepares batch {@code seq} on a quorum of matching tokens that chain on {@code anchor} (the token
     * committed or pre-prepared at {@code seq - 1}), or changes view when they cannot; true if it pre-prepared.
     */
    private boolean tryPrePrepare(long seq, Slot slot, Token anchor) {
        Map<String, Integer> counts = new TreeMap<>();
        int best = 0;
        for (Token token : slot.verifies.values()) {
            if (chains(token, anchor)) {
                int count = counts.merge(token.digest().toHex(), 1, Integer::sum);
                if (count >= config.verifyQuorum()) {
                    onQuorum(token);
                    return slot.prePrepared != null;
                }
                best = Math.max(best, count);
            }
        }
        int missing = config.executionCount() - slot.verifies.size();
        if (best + missing < config.verifyQuorum()) {
            // Eve §6.1: diverging replicas; only a new view (rollback, sequential re-execution) gets past it.
            if (seq == start.seq() + 1 && diagnosedView != views.view()) {
                diagnosedView = views.view();
                diagnose(seq, slot.verifies);
            }
            mismatchSeen = true;
            startViewChange(views.view() + 1, "the tokens of batch " + seq + " cannot reach a quorum");
        }
        return false;
    }

    /**
     * An execution replica's object digests of a batch it ran sequentially: kept (the last per replica) for a
     * diagnosis, never counted towards anything. A Byzantine replica may lie in them; it can only make a log
     * line wrong.
     */
    private void onObjectDigests(int from, ObjectDigests message) {
        if (!config.isExecutionReplica(from) || message.view() != views.view() || message.seq() <= committedSeq) {
            ignored++;
            return;
        }
        reports.onReport(from, message);
    }

    /**
     * The first batch of the view ran sequentially on every replica, and its tokens still cannot reach a quorum:
     * the WARN line names the objects on which the replicas differ (docs/state.md, "Diagnosing a batch that still
     * differs"). A report only: the view change goes ahead as before.
     */
    private void diagnose(long seq, Map<Integer, Token> verifies) {
        LOG.warn(
                "verifier {}: batch {} still differs after sequential re-execution in view {}: nondeterminism outside"
                        + " the execution context; {}; changing view",
                self,
                seq,
                views.view(),
                reports.diagnoseReplicas(views.view(), seq, verifies));
    }

    /** Eve §6.3: in the extra protection mode the quorum is not enough; all {@code nE} tokens must match. */
    private void onQuorum(Token token) {
        switch (protection.verdict(token.seq(), token, now)) {
            case PREPARE -> prePrepare(token);
            case WAIT -> {}
            case ROLL_BACK ->
                startViewChange(views.view() + 1, "extra protection: " + protection.rollBackReason(token.seq(), now));
        }
    }

    /**
     * Eve §4.2 footnote 1: a token is valid only if it extends the anchor of the batch before (the token this
     * verifier committed or pre-prepared there; null only for the initial state, before batch 1).
     */
    private boolean chains(Token token, Token anchor) {
        return anchor == null ? token.seq() == 1 : token.previous().equals(anchor.digest());
    }

    private void prePrepare(Token token) {
        Slot slot = slots.get(token.seq());
        slot.prePrepared = token;
        broadcastVerifiers(new Prepare(views.view(), self, token));
    }

    private void onPrepare(int from, Prepare message, Message form) {
        if (!views.inView(message.view(), from)) {
            return;
        }
        long seq = message.token().seq();
        if (seq == start.seq() && message.token().matches(start)) {
            onStartPrepare(from, form);
            return;
        }
        if (seq <= committedSeq) {
            helpLaggard(from, seq);
            return;
        }
        if (beyondWindow(seq)) {
            return;
        }
        Slot slot = slot(seq);
        if (slot.prepares.putIfAbsent(from, message.token()) != null) {
            ignored++;
            return;
        }
        slot.prepareForms.put(from, form);
        if (slot.prepared != null) {
            return;
        }
        List<Message> matching = Slot.matching(slot.prepares, slot.prepareForms, message.token());
        if (matching.size() < config.agreementQuorum()) {
            return;
        }
        if (slot.quorumAt < 0) {
            slot.quorumAt = now;
        }
        if (matching.size() >= config.agreementQuorum() + config.r()) {
            // docs/quorum.md, "Signed evidence", rule 2: at most r of these come from Byzantine verifiers, so at
            // least nV - u signatures verify, at every receiver; none needs checking here.
            if (slot.waitingFor != null) {
                slot.waitingFor = null;
                preparesGap.sample(now - slot.quorumAt, now);
            }
            if (evidence.checksSignatures()) {
                evidence.certifiedUnchecked(); // counted there: SignedEvidence.uncheckedCertificates()
            }
            prepare(slot, message.token(), matching);
            return;
        }
        if (evidence.checksSignatures()
                && (slot.waitingFor != null || preparesGap.valueAt(now) <= PREPARE_WAIT_NANOS)) {
            slot.waitingFor = message.token(); // the last Prepares are likely on their way: the next tick ends this
            return;
        }
        prepareChecked(slot, message.token());
    }

    /** A certificate of {@code token} from the {@code Prepare}s whose signatures check out, if there are enough. */
    private void prepareChecked(Slot slot, Token token) {
        List<Message> matching = confirmed(slot.prepareForms, Slot.matching(slot.prepares, slot.prepareForms, token));
        if (matching.size() >= config.agreementQuorum()) {
            prepare(slot, token, matching);
        }
    }

    private void prepare(Slot slot, Token token, List<Message> matching) {
        slot.prepared = token;
        Certificate certificate = new Certificate(views.view(), token, matching);
        raise(certificate);
        broadcastVerifiers(new CommitVote(views.view(), self, token));
    }

    /**
     * At a tick: the certificates that have waited {@link #PREPARE_WAIT_NANOS} for their last {@code Prepare}s are
     * made from the ones here, their signatures checked; the wait counts as a long gap, so the next batches do not
     * wait for a while. A younger wait goes on: its last {@code Prepare}s may be a moment away.
     */
    private void stopWaitingForPrepares() {
        for (Slot slot : slots.values()) {
            Token token = slot.waitingFor;
            if (token != null && now - slot.quorumAt >= PREPARE_WAIT_NANOS) {
                slot.waitingFor = null;
                preparesGap.sample(Math.max(now - slot.quorumAt, 2 * PREPARE_WAIT_NANOS), now);
                if (slot.prepared == null) {
                    prepareChecked(slot, token);
                }
            }
        }
    }

    /**
     * docs/quorum.md, "Which certificate": the verifiers prepare a new view's start in that view, and only
     * once {@code nV - u} did so do they tell the execution replicas to roll back to it.
     */
    private void onStartPrepare(int from, Message form) {
        if (startPrepares.putIfAbsent(from, form) != null) {
            return;
        }
        if (!startConfirmed && startPrepares.size() >= config.agreementQuorum()) {
            confirmed(startPrepares, new ArrayList<>(startPrepares.values()));
        }
        if (!startConfirmed && startPrepares.size() >= config.agreementQuorum()) {
            startConfirmed = true;
            lastProgress = now;
            if (start.seq() > 0) {
                Certificate certificate = new Certificate(views.view(), start, new ArrayList<>(startPrepares.values()));
                raise(certificate);
            }
            VerifyResponse response = new VerifyResponse(views.view(), start, true);
            for (int replica : config.executionReplicas()) {
                outbox.send(replica, response);
            }
        }
    }

    private void onCommitVote(int from, CommitVote message, Message form) {
        if (!views.inView(message.view(), from)) {
            return;
        }
        long seq = message.token().seq();
        if (seq <= committedSeq) {
            Certificate proof = committedCertificate;
            if (proof != null && seq == proof.seq() && message.token().equals(proof.token())) {
                lateVotes.putIfAbsent(from, form);
            }
            return; // answering votes with votes would echo between two verifiers forever
        }
        if (beyondWindow(seq)) {
            return;
        }
        Slot slot = slot(seq);
        if (slot.votes.putIfAbsent(from, message.token()) != null) {
            ignored++;
            return;
        }
        slot.voteForms.put(from, form);
        List<Message> matching = Slot.matching(slot.votes, slot.voteForms, message.token());
        if (matching.size() >= config.agreementQuorum()) {
            // A certificate for n alone commits n (Eve §6.1): no need to have committed n - 1 here.
            Certificate certificate = new Certificate(views.view(), message.token(), matching);
            if (matching.stream().allMatch(evidence::reportable)) {
                // With signed evidence a view change reports Prepare certificates only (docs/quorum.md).
                raise(certificate);
            }
            committedCertificate = certificate;
            lateVotes.clear();
            commit(message.token());
        }
    }

    /**
     * docs/quorum.md, "Signed evidence", rule 2: the pieces of {@code matching} whose proof checks out, checked
     * only now that they would complete a certificate (so a batch costs {@code nV - u - 1} signature checks,
     * not one per verifier); a piece that does not is dropped from {@code forms} (its sender is not counted
     * again for this batch: its token stays) and ignored.
     */
    private List<Message> confirmed(Map<Integer, Message> forms, List<Message> matching) {
        List<Message> confirmed = new ArrayList<>(matching.size());
        for (Message form : matching) {
            if (evidence.confirm(form)) {
                confirmed.add(form);
            } else {
                forms.values().remove(form);
                ignored++;
            }
        }
        return confirmed;
    }

    /** Keeps {@code certificate} as the best this verifier holds if it is above the best so far. */
    private void raise(Certificate certificate) {
        if (certificate.isAbove(best)) {
            best = certificate;
        }
    }

    private void commit(Token token) {
        long seq = token.seq();
        committedSeq = seq;
        committedToken = token;
        recentCommits.put(seq, token);
        while (recentCommits.size() > KEPT_COMMITS) {
            recentCommits.pollFirstEntry();
        }
        Slot done = slots.get(seq);
        if (done != null) {
            commitLatency.sample(now - done.createdAt);
        }
        slots.headMap(seq, true).clear();
        reports.onCommitted(seq);
        views.onProgress(now - lastProgress);
        lastProgress = now;
        if (judgingChange && ++commitsInView > 2 * config.pipelineDepth() + 2) {
            judgingChange = false; // an execution replica stayed silent: the view change was needed
        }
        suspects.clear();
        VerifyResponse response = new VerifyResponse(views.view(), token, false);
        for (int replica : config.executionReplicas()) {
            outbox.send(replica, response);
        }
        advance();
    }

    /** A verifier still working on a batch this one committed: send it this verifier's vote for it. */
    private void helpLaggard(int to, long seq) {
        Token agreed = recentCommits.get(seq);
        if (agreed != null && to != self) {
            outbox.send(to, new CommitVote(views.view(), self, agreed));
        }
    }

    private void onSuspect(int from, Suspect message) {
        if (!config.isExecutionReplica(from) || message.view() != views.view() || views.changing()) {
            return;
        }
        suspects.add(from);
        if (suspects.size() >= config.responseQuorum()) {
            startViewChange(views.view() + 1, suspects.size() + " execution replicas suspect the primary");
        }
    }

    private void retransmit() {
        views.retransmit();
        if (views.changing() || !views.heardFromEveryVerifier()) {
            // Rule F: this verifier's view change counts at another only once the announcement of what this
            // incarnation did arrived there; it goes with the retransmissions of the view change, and while a
            // verifier that has not entered this view may still be checking the NewView that holds it.
            for (JoinState announcement : new JoinState[] {adoption, adoptedNothing, noPartBelow}) {
                if (announcement != null) {
                    sendToOtherVerifiers(announcement);
                }
            }
        }
        if (views.changing()) {
            return;
        }
        long view = views.view();
        if (!startConfirmed || (view > 0 && committedSeq == start.seq() && !abstains(start.seq()))) {
            // Until the view commits a batch, a verifier that entered it late still needs these.
            sendToOtherVerifiers(new Prepare(view, self, start));
        }
        for (Map.Entry<Long, Slot> entry : slots.entrySet()) {
            Slot slot = entry.getValue();
            if (slot.prePrepared != null) {
                sendToOtherVerifiers(new Prepare(view, self, slot.prePrepared));
            }
            if (slot.prepared != null) {
                sendToOtherVerifiers(new CommitVote(view, self, slot.prepared));
            }
        }
    }

    /**
     * A view change this verifier saw no cause for (a stall, a suspicion, a late token, or others moving on) was
     * unnecessary if every execution replica, the old primary included, executes in the new view: then its
     * timeout was too short, and it backs off (decision 0028).
     */
    private void judgeViewChange(int replica) {
        if (judgingChange && aliveInView.add(replica) && aliveInView.size() == config.executionCount()) {
            judgingChange = false;
            views.onUnnecessaryViewChange();
        }
    }

    // ---- rejoining without a view change (docs/quorum.md, "Rejoining") ---------------------------------

    /**
     * A verifier that restarted asks where this one is: its view and the proof of its last commit there. If this
     * one is rejoining itself (two faults, {@code u >= 2}), it knows no view to tell: it answers that it is
     * recovering, so that the joiner need not wait for it, and sets the filter of rule F all the same
     * (docs/quorum.md, "Two joiners at once"); silent, two verifiers restarted together would each wait for the
     * other and rejoin only by a view change.
     */
    private void onJoinQuery(int from, JoinQuery query) {
        if (from == self || !config.isVerifier(from)) {
            return;
        }
        boolean recovering = views.recovering();
        // Rule F: from now on a view change of the joiner counts here only as its announcements allow, whether
        // this verifier is changing view or not (a view change of an earlier life may still be on its way). A
        // verifier that is recovering answers in no view: whatever view the joiner says it adopted lowers it.
        long answeredIn = recovering ? Long.MAX_VALUE : views.view();
        if (!rules.onRejoin(from, answeredIn, query.nonce(), !recovering && views.changing())) {
            staleJoinQueries++;
            LOG.warn(
                    "verifier {}: a join query of verifier {} with incarnation {}, below one it sent before: an"
                            + " earlier start's query delivered late, or that process's clock went back across a"
                            + " restart; not answered",
                    self,
                    from,
                    query.nonce());
            return;
        }
        if (recovering) {
            outbox.send(from, Rejoin.recoveringAnswer(self, query.nonce()));
            return;
        }
        Certificate proof = checkedProof(committedCertificate);
        // While it changes view, the view it is leaving for: the joiner bounds its earlier lives' views with it.
        long reached = views.reached();
        JoinState state = proof == null
                ? new JoinState(self, query.nonce(), reached, views.changing(), -1, ViewChanges.ORIGIN, List.of())
                : new JoinState(
                        self, query.nonce(), reached, views.changing(), proof.view(), proof.token(), proof.evidence());
        outbox.send(from, state);
    }

    /**
     * An execution replica that restarted without its state asks how far the views have gone
     * (docs/quorum.md, "Restarting without a disk"). A verifier that is itself still rejoining does not
     * know: it stays silent, and the replica asks again.
     */
    private void onViewQuery(int from, ViewQuery query) {
        if (!config.isExecutionReplica(from) || views.recovering()) {
            if (!config.isExecutionReplica(from)) {
                ignored++;
            }
            return;
        }
        outbox.send(from, new ViewReport(self, query.nonce(), views.reached()));
    }

    /**
     * The proof of the last commit as a joiner will check it: the pieces of {@code proof} that open here (with
     * signed evidence, whose signatures verify; the votes counted on the link were not checked), completed from
     * the votes that came after the commit. A Byzantine voter's vote with a right MAC and a wrong signature may
     * have counted on the link; left in the proof, it would make the joiner refuse this answer. The proof as it
     * is if fewer than a quorum open: the joiner then refuses it, as it would this verifier's silence.
     */
    private Certificate checkedProof(Certificate proof) {
        if (proof == null) {
            return null;
        }
        Map<Integer, Message> pieces = new TreeMap<>();
        List<Message> candidates = new ArrayList<>(proof.evidence());
        candidates.addAll(lateVotes.values());
        for (Message piece : candidates) {
            Evidence.Opened opened = evidence.open(piece);
            if (opened != null
                    && opened.message() instanceof CommitVote vote
                    && vote.token().equals(proof.token())
                    && pieces.size() < config.agreementQuorum()) {
                pieces.putIfAbsent(opened.origin(), piece);
            }
        }
        return pieces.size() >= config.agreementQuorum()
                ? new Certificate(proof.view(), proof.token(), new ArrayList<>(pieces.values()))
                : proof;
    }

    private void onJoinState(int from, JoinState state) {
        if (rejoin == null || !views.recovering() || !rejoin.onJoinState(from, state)) {
            onAdoption(from, state);
            return;
        }
        // An answer tells where its sender is, as its other messages do (while changing: the view it left).
        views.noteView(from, state.changing() ? state.view() - 1 : state.view());
        Rejoin.Adopted adopted = rejoin.tryAdopt();
        if (adopted == null || adopted.view() < views.learnedTarget()) {
            return; // it said it takes part in no view below the one it reported for
        }
        Certificate proof = adopted.committed();
        adoption = new JoinState(
                self,
                rejoin.nonce(),
                adopted.view(),
                false,
                proof == null ? -1 : proof.view(),
                proof == null ? ViewChanges.ORIGIN : proof.token(),
                proof == null ? List.of() : proof.evidence());
        sendToOtherVerifiers(adoption);
        views.rejoin(adopted.view(), proof == null ? 0 : proof.seq(), now - startedAt);
        rejoinView = adopted.view();
        abstainThrough = adopted.abstainThrough();
        start = proof == null ? ViewChanges.ORIGIN : proof.token();
        committedSeq = start.seq();
        committedToken = proof == null ? null : proof.token();
        committedCertificate = proof;
        lateVotes.clear();
        if (proof != null && proof.isAbove(best)) {
            best = proof; // a remembered certificate above it stays
        }
        startConfirmed = true;
        slots.clear();
        lastProgress = now;
        if (proof != null) {
            recentCommits.put(proof.seq(), proof.token());
        }
    }

    /**
     * A verifier that rejoined says what it adopted, in the form of the answers it adopted from: its view
     * changes may count here from then on with a certificate of that view above the batch + 1 (rule F).
     */
    private void onAdoption(int from, JoinState state) {
        if (from == self || state.verifier() != from) {
            return;
        }
        if (state.changing() && state.certificateView() == ViewChanges.RECOVERING) {
            rules.onAdoptedNothing(from, state.nonce());
            return;
        }
        if (state.certificateView() == ViewChanges.RECOVERING) {
            rules.onTookNoPartBelow(from, state.nonce(), state.view());
            return;
        }
        if (state.changing()) {
            return;
        }
        long committed = Rejoin.provenCommit(rules, state);
        if (committed >= 0) {
            rules.onAdopted(from, state.nonce(), state.view(), committed);
        }
    }

    /**
     * After a rejoin, the batches of the adopted view this verifier may have pre-prepared before its
     * restart: it sends no {@code Prepare} for them, so it cannot contradict a vote it forgot.
     */
    private boolean abstains(long seq) {
        return views.view() == rejoinView && seq <= abstainThrough;
    }

    // ---- view change (Eve §6.1, docs/quorum.md): ViewChangeDriver ------------------------------------

    private void startViewChange(long newView, String why) {
        views.startViewChange(newView, why, now);
    }

    /** The normal case's side of leaving and entering views. */
    private final class Host implements ViewChangeDriver.Host {
        @Override
        public Certificate best() {
            return best;
        }

        @Override
        public void onLeaveView() {
            slots.clear();
        }

        @Override
        public void onEnterView(long newView, Certificate chosen) {
            start = ViewChanges.startOf(chosen);
            committedCertificate = null;
            lateVotes.clear();
            committedSeq = start.seq();
            committedToken = start.seq() == 0 ? null : start;
            recentCommits.clear();
            slots.clear();
            suspects.clear();
            if (chosen != null) {
                raise(chosen);
            }
            lastProgress = now;
            startConfirmed = false;
            startPrepares.clear();
            judgingChange = !mismatchSeen;
            mismatchSeen = false;
            aliveInView.clear();
            commitsInView = 0;
            protection.onViewEntered(start.seq());
            broadcastVerifiers(new Prepare(newView, self, start));
        }

        @Override
        public void broadcastVerifiers(Message message) {
            Verifier.this.broadcastVerifiers(message);
        }

        @Override
        public void onRejoinAbandoned() {
            // docs/quorum.md, "Rejoining", rule F: before the view change that reports its memory, so that the
            // verifiers that answered its query count that view change when it arrives.
            adoptedNothing = new JoinState(
                    self, rejoin.nonce(), views.view(), true, ViewChanges.RECOVERING, ViewChanges.ORIGIN, List.of());
            sendToOtherVerifiers(adoptedNothing);
        }

        @Override
        public long earlierViewsBound() {
            return rejoin == null ? Long.MAX_VALUE : rejoin.earlierViewsBound();
        }

        @Override
        public void onTookNoPartBelow(long view, boolean entered) {
            noPartBelow = new JoinState(
                    self, rejoin.nonce(), view, false, ViewChanges.RECOVERING, ViewChanges.ORIGIN, List.of());
            sendToOtherVerifiers(noPartBelow);
            if (entered) {
                freshView = view;
            }
        }

        @Override
        public boolean reportsCertificate() {
            return Verifier.this.reportsCertificate();
        }
    }

    // ---- memory (docs/quorum.md, "Durable verifiers") --------------------------------------------------

    /** A message held until record {@code version} is durable. */
    private record Held(int to, Message message, long version) {}

    /** What this verifier must remember now: the highest view it is in or left for, and its best certificate. */
    private VerifierMemory.Remembered remembered() {
        return new VerifierMemory.Remembered(views.highestView(), best);
    }

    /**
     * Every message leaves only once what it depends on is durable: if the view or the best certificate changed
     * since the last record saved, a new one is saved first, and the message waits for it (and keeps its place
     * behind messages already waiting).
     */
    private void sendWhenRemembered(int to, Message message) {
        VerifierMemory.Remembered now = remembered();
        if (saved == null || now.view() != saved.view() || now.best() != saved.best()) {
            saved = now;
            memory.save(now, ++savedVersion);
        }
        if (held.isEmpty() && durableVersion >= savedVersion) {
            network.send(to, message);
        } else if (held.size() >= config.bounds().heldMessages()) {
            // docs/quorum.md, "Bounded memory": as if lost on the way; what matters is sent again.
            refusals.add(Refusals.Reason.HELD_FULL);
        } else {
            held.add(new Held(to, message, savedVersion));
        }
    }

    /** Record {@code version} of this verifier's memory is durable: the messages that waited for it leave. */
    public void onDurable(long version) {
        durableVersion = Math.max(durableVersion, version);
        while (!held.isEmpty() && held.peek().version() <= durableVersion) {
            Held next = held.poll();
            network.send(next.to(), next.message());
        }
    }

    /** Messages waiting for this verifier's memory to be durable (0 without a memory). */
    public int heldMessages() {
        return held.size();
    }

    // ---- sending ---------------------------------------------------------------------------------

    /** To every other verifier through the outbox, and to this one after the current event. */
    private void broadcastVerifiers(Message message) {
        sendToOtherVerifiers(message);
        own.add(message);
    }

    private void sendToOtherVerifiers(Message message) {
        for (int verifier : config.verifiers()) {
            if (verifier != self) {
                outbox.send(verifier, message);
            }
        }
    }

    private void drainOwn() {
        for (Message message = own.poll(); message != null; message = own.poll()) {
            dispatch(self, message, evidence.seal(message));
        }
    }
}
