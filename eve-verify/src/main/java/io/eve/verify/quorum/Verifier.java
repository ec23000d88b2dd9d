package io.eve.verify.quorum;

import io.eve.execution.Token;
import io.eve.protocol.Message;
import io.eve.protocol.Message.Authenticated;
import io.eve.protocol.Message.CommitVote;
import io.eve.protocol.Message.NewView;
import io.eve.protocol.Message.Prepare;
import io.eve.protocol.Message.Suspect;
import io.eve.protocol.Message.Verify;
import io.eve.protocol.Message.VerifyResponse;
import io.eve.protocol.Message.ViewChange;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
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
 * this verifier committed for the batch before: pre-prepared, send {@code Prepare}. {@code nV - u}
 * matching {@code Prepare}: prepared, send {@code CommitVote}. {@code nV - u} matching {@code CommitVote}:
 * committed, send {@code VerifyResponse} to the execution replicas. Batches are agreed one after the
 * other (a batch's {@code Verify} waits for the batch before it to commit) while their messages pipeline.
 * When agreement stalls, or the tokens of a batch can no longer reach a quorum, the verifiers change
 * view ({@link ViewChanges}); the new view starts from the best certificate and rotates the primary.
 *
 * <p>Not thread-safe: one protocol thread calls it.
 */
public final class Verifier {
    private static final Logger LOG = LoggerFactory.getLogger(Verifier.class);
    private static final int KEPT_COMMITS = 256;
    private static final int MAX_TIMEOUT_DOUBLINGS = 6;

    private final QuorumConfig config;
    private final Outbox outbox;
    private final Evidence evidence;
    private final ViewChanges rules;
    private final int self;
    private final String name;
    private final Deque<Message> own = new ArrayDeque<>();

    private long view;
    private boolean changing;
    private long target;
    private long changeStartedAt;
    private int doublings;
    private long committedSeq;
    private Token committedToken;
    private Token start = ViewChanges.ORIGIN;
    private final NavigableMap<Long, Token> recentCommits = new TreeMap<>();
    private final NavigableMap<Long, Slot> slots = new TreeMap<>();
    private Certificate best;
    private long lastProgress;
    private long lastRetransmit;
    private long now;
    private final Set<Integer> suspects = new HashSet<>();
    private final NavigableMap<Long, Map<Integer, Message>> viewChanges = new TreeMap<>();
    private final Map<Integer, Long> highestChangeSeen = new TreeMap<>();
    private NewView sentNewView;
    private ViewChange myChange;
    private final Set<Integer> heardInView = new HashSet<>();
    private long viewChangesStarted;
    private long rejectedNewViews;
    private long ignored;
    private boolean startConfirmed = true;
    private final Map<Integer, Message> startPrepares = new TreeMap<>();
    private boolean recovering;
    private long lastRecoveryRequest = Long.MIN_VALUE / 2;
    private final Map<Integer, Long> viewsSeen = new TreeMap<>();

    /** What this verifier knows of one batch in the current view. */
    private static final class Slot {
        final Map<Integer, Token> verifies = new LinkedHashMap<>();
        final Map<Integer, Token> prepares = new LinkedHashMap<>();
        final Map<Integer, Message> prepareForms = new LinkedHashMap<>();
        final Map<Integer, Token> votes = new LinkedHashMap<>();
        final Map<Integer, Message> voteForms = new LinkedHashMap<>();
        Token prePrepared;
        Token prepared;
    }

    /**
     * @param recovering whether this verifier restarted without its state: it takes no part in agreement
     *     until a new view starts that it did not help choose (docs/quorum.md, "Restarts")
     */
    public Verifier(QuorumConfig config, Outbox outbox, Evidence evidence, boolean recovering) {
        this.recovering = recovering;
        if (!config.hostsVerifier()) {
            throw new IllegalArgumentException("process " + config.self() + " hosts no verifier in " + config);
        }
        this.config = config;
        this.outbox = outbox;
        this.evidence = evidence;
        this.rules = new ViewChanges(config, evidence);
        this.self = config.self();
        this.name = "verifier " + self;
    }

    public void start(long nowNanos) {
        now = nowNanos;
        lastProgress = nowNanos;
        lastRetransmit = nowNanos;
    }

    public long view() {
        return view;
    }

    /** Whether this verifier restarted without its state and waits for a new view to join. */
    public boolean recovering() {
        return recovering;
    }

    /** Whether this verifier has left its view and waits for the next one to start. */
    public boolean changingView() {
        return changing;
    }

    public long committedSeq() {
        return committedSeq;
    }

    /** The token this verifier committed last (the initial state's placeholder before any). */
    public Token committedToken() {
        return committedToken == null ? ViewChanges.ORIGIN : committedToken;
    }

    public long viewChangesStarted() {
        return viewChangesStarted;
    }

    /** {@code NewView} messages refused because their choice did not recompute. */
    public long rejectedNewViews() {
        return rejectedNewViews;
    }

    /** Messages dropped as duplicate, malformed, misattributed or out of place. */
    public long ignored() {
        return ignored;
    }

    // ---- inputs --------------------------------------------------------------------------------

    public void onMessage(int from, Message message, long nowNanos) {
        now = nowNanos;
        Message form = message;
        Message inner = message;
        if (message instanceof Authenticated) {
            Evidence.Opened opened = evidence.open(message);
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
        if (recovering) {
            requestRecovery();
            return;
        }
        long timeout = config.viewTimeoutNanos() << doublings;
        if (changing && now - changeStartedAt > timeout) {
            LOG.warn(
                    "{}: view {} did not start within {} ms; trying view {}",
                    name,
                    target,
                    timeout / 1_000_000,
                    target + 1);
            startViewChange(target + 1, "the new view did not start");
        } else if (!changing && (!slots.isEmpty() || !startConfirmed) && now - lastProgress > timeout) {
            startViewChange(view + 1, "no batch committed for " + timeout / 1_000_000 + " ms");
        }
        if (now - lastRetransmit >= config.retransmitNanos()) {
            lastRetransmit = now;
            retransmit();
        }
        drainOwn();
    }

    private void dispatch(int from, Message message, Message form) {
        int named = Evidence.namedSender(message);
        if (named >= 0 && named != from) {
            ignored++;
            return;
        }
        if (recovering && !(message instanceof NewView)) {
            noteView(from, message);
            return;
        }
        if (message instanceof Verify verify) {
            onVerify(from, verify);
        } else if (!config.isVerifier(from) && !(message instanceof Suspect)) {
            ignored++;
        } else if (message instanceof Prepare prepare) {
            onPrepare(from, prepare, form);
        } else if (message instanceof CommitVote vote) {
            onCommitVote(from, vote, form);
        } else if (message instanceof ViewChange change) {
            onViewChange(from, form);
        } else if (message instanceof NewView newView) {
            onNewView(from, newView);
        } else if (message instanceof Suspect suspect) {
            onSuspect(from, suspect);
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
        if (changing || message.view() > view || recovering || !startConfirmed) {
            return; // the replica retransmits once this verifier is in its view
        }
        if (token.seq() == 0) {
            // A replica that restarted asks where the verifiers are.
            outbox.send(from, new VerifyResponse(view, committedToken(), committedSeq == start.seq()));
            return;
        }
        if (message.view() < view) {
            // The replica missed the new view: tell it where this view started.
            outbox.send(from, new VerifyResponse(view, start, true));
            return;
        }
        if (token.seq() <= committedSeq) {
            // The replica missed the VerifyResponse: the agreed token, or the latest this verifier holds.
            Token agreed = recentCommits.get(token.seq());
            if (agreed == null) {
                agreed = committedToken();
            }
            outbox.send(from, new VerifyResponse(view, agreed, agreed.seq() == start.seq()));
            return;
        }
        Slot slot = slot(token.seq());
        if (slot.verifies.putIfAbsent(from, token) != null) {
            ignored++; // one Verify per replica and batch: a second, even a different one, is not counted
            return;
        }
        advance();
    }

    /** The slot of a batch; the first pending batch starts the stall timer. */
    private Slot slot(long seq) {
        if (slots.isEmpty()) {
            lastProgress = now;
        }
        return slots.computeIfAbsent(seq, s -> new Slot());
    }

    /** Pre-prepares the next batch if its Verify messages allow, and detects tokens that cannot agree. */
    private void advance() {
        Slot slot = slots.get(committedSeq + 1);
        if (slot == null || slot.prePrepared != null) {
            return;
        }
        Map<String, Integer> counts = new TreeMap<>();
        int best = 0;
        for (Token token : slot.verifies.values()) {
            if (chains(token)) {
                int count = counts.merge(token.digest().toHex(), 1, Integer::sum);
                if (count >= config.verifyQuorum()) {
                    prePrepare(token);
                    return;
                }
                best = Math.max(best, count);
            }
        }
        int missing = config.executionCount() - slot.verifies.size();
        if (best + missing < config.verifyQuorum()) {
            // Eve §6.1: diverging replicas; only a new view (rollback, sequential re-execution) gets past it.
            startViewChange(view + 1, "the tokens of batch " + (committedSeq + 1) + " cannot reach a quorum");
        }
    }

    /** Eve §4.2 footnote 1: a token is valid only if it extends the token committed for the batch before. */
    private boolean chains(Token token) {
        return committedToken == null ? committedSeq == 0 : token.previous().equals(committedToken.digest());
    }

    private void prePrepare(Token token) {
        Slot slot = slots.get(token.seq());
        slot.prePrepared = token;
        broadcastVerifiers(new Prepare(view, self, token));
    }

    private void onPrepare(int from, Prepare message, Message form) {
        if (!inView(message.view(), from)) {
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
        Slot slot = slot(seq);
        if (slot.prepares.putIfAbsent(from, message.token()) != null) {
            ignored++;
            return;
        }
        slot.prepareForms.put(from, form);
        List<Message> matching = matching(slot.prepares, slot.prepareForms, message.token());
        if (slot.prepared == null && matching.size() >= config.agreementQuorum()) {
            slot.prepared = message.token();
            Certificate certificate = new Certificate(view, message.token(), matching);
            if (certificate.isAbove(best)) {
                best = certificate;
            }
            broadcastVerifiers(new CommitVote(view, self, message.token()));
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
            startConfirmed = true;
            lastProgress = now;
            if (start.seq() > 0) {
                Certificate certificate = new Certificate(view, start, new ArrayList<>(startPrepares.values()));
                if (certificate.isAbove(best)) {
                    best = certificate;
                }
            }
            VerifyResponse response = new VerifyResponse(view, start, true);
            for (int replica : config.executionReplicas()) {
                outbox.send(replica, response);
            }
        }
    }

    private void onCommitVote(int from, CommitVote message, Message form) {
        if (!inView(message.view(), from)) {
            return;
        }
        long seq = message.token().seq();
        if (seq <= committedSeq) {
            return; // answering votes with votes would echo between two verifiers forever
        }
        Slot slot = slot(seq);
        if (slot.votes.putIfAbsent(from, message.token()) != null) {
            ignored++;
            return;
        }
        slot.voteForms.put(from, form);
        List<Message> matching = matching(slot.votes, slot.voteForms, message.token());
        if (matching.size() >= config.agreementQuorum()) {
            // A certificate for n alone commits n (Eve §6.1): no need to have committed n - 1 here.
            Certificate certificate = new Certificate(view, message.token(), matching);
            if (certificate.isAbove(best)) {
                best = certificate;
            }
            commit(message.token());
        }
    }

    private static List<Message> matching(Map<Integer, Token> tokens, Map<Integer, Message> forms, Token token) {
        List<Message> matching = new ArrayList<>();
        for (Map.Entry<Integer, Token> entry : tokens.entrySet()) {
            if (entry.getValue().matches(token)) {
                matching.add(forms.get(entry.getKey()));
            }
        }
        return matching;
    }

    private boolean inView(long messageView, int from) {
        if (messageView == view && !changing) {
            heardInView.add(from);
            return true;
        }
        if (messageView == view) {
            heardInView.add(from);
        }
        return false;
    }

    private void commit(Token token) {
        long seq = token.seq();
        committedSeq = seq;
        committedToken = token;
        recentCommits.put(seq, token);
        while (recentCommits.size() > KEPT_COMMITS) {
            recentCommits.pollFirstEntry();
        }
        slots.headMap(seq, true).clear();
        lastProgress = now;
        doublings = 0;
        suspects.clear();
        VerifyResponse response = new VerifyResponse(view, token, false);
        for (int replica : config.executionReplicas()) {
            outbox.send(replica, response);
        }
        advance();
    }

    /** A verifier still working on a batch this one committed: send it this verifier's vote for it. */
    private void helpLaggard(int to, long seq) {
        Token agreed = recentCommits.get(seq);
        if (agreed != null && to != self) {
            outbox.send(to, new CommitVote(view, self, agreed));
        }
    }

    private void onSuspect(int from, Suspect message) {
        if (!config.isExecutionReplica(from) || message.view() != view || changing) {
            return;
        }
        suspects.add(from);
        if (suspects.size() >= config.responseQuorum()) {
            startViewChange(view + 1, suspects.size() + " execution replicas suspect the primary");
        }
    }

    private void retransmit() {
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
        if (!startConfirmed || (view > 0 && committedSeq == start.seq())) {
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

    // ---- view change (Eve §6.1, docs/quorum.md) ---------------------------------------------------

    /** While recovering: the views other verifiers are in, from what they send. */
    private void noteView(int from, Message message) {
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
        }
        viewsSeen.merge(from, seen, Math::max);
    }

    /**
     * A restarted verifier forgot what it prepared, so it must not report a certificate (a missing one could
     * let a new view start below a committed batch): it asks the others for a new view and joins that.
     */
    private void requestRecovery() {
        if (now - lastRecoveryRequest < config.viewTimeoutNanos() || viewsSeen.size() < config.responseQuorum()) {
            return;
        }
        lastRecoveryRequest = now;
        List<Long> views = new ArrayList<>(viewsSeen.values());
        views.sort(null);
        long current = views.get(views.size() - config.responseQuorum());
        sendToOtherVerifiers(new ViewChange(current + 1, self, ViewChanges.RECOVERING, ViewChanges.ORIGIN, List.of()));
    }

    private void startViewChange(long newView, String why) {
        if (newView <= view || (changing && newView <= target)) {
            return;
        }
        LOG.warn("{}: leaving view {} for view {}: {}", name, changing ? target : view, newView, why);
        viewChangesStarted++;
        changing = true;
        target = newView;
        changeStartedAt = now;
        doublings = Math.min(MAX_TIMEOUT_DOUBLINGS, doublings + 1);
        slots.clear();
        ViewChange change = best == null
                ? new ViewChange(newView, self, -1, ViewChanges.ORIGIN, List.of())
                : new ViewChange(newView, self, best.view(), best.token(), best.evidence());
        myChange = change;
        broadcastVerifiers(change);
    }

    private void onViewChange(int from, Message form) {
        ViewChanges.Checked checked = rules.check(form);
        if (checked == null || checked.origin() != from) {
            ignored++;
            return;
        }
        long newView = checked.change().newView();
        if (newView <= view) {
            return;
        }
        if (ViewChanges.isRecovering(checked.change())) {
            highestChangeSeen.merge(from, newView, Math::max);
            joinIfOthersMovedOn();
            return;
        }
        viewChanges.computeIfAbsent(newView, v -> new TreeMap<>()).putIfAbsent(from, form);
        highestChangeSeen.merge(from, newView, Math::max);
        joinIfOthersMovedOn();
        tryNewView(newView);
    }

    /** PBFT's rule with r + 1 for f + 1: follow a view change that a correct verifier has begun. */
    private void joinIfOthersMovedOn() {
        long current = changing ? target : view;
        List<Long> ahead = new ArrayList<>();
        for (Map.Entry<Integer, Long> entry : highestChangeSeen.entrySet()) {
            if (entry.getKey() != self && entry.getValue() > current) {
                ahead.add(entry.getValue());
            }
        }
        if (ahead.size() >= config.responseQuorum()) {
            ahead.sort(null);
            startViewChange(ahead.get(ahead.size() - config.responseQuorum()), "other verifiers moved on");
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

    private void onNewView(int from, NewView message) {
        if (from != config.leader(message.view())
                || message.view() < view
                || (message.view() == view && !changing)
                || (changing && message.view() < target)) {
            return;
        }
        List<ViewChanges.Checked> checked = rules.checkAll(message.viewChanges(), message.view());
        Certificate chosen = ViewChanges.choose(checked);
        Token expected = ViewChanges.startOf(chosen);
        if (checked.size() < config.agreementQuorum() || !expected.matches(message.start())) {
            rejectedNewViews++;
            LOG.warn(
                    "{}: refusing the new view {} from {}: {} valid view changes, start {} where they give {}",
                    name,
                    message.view(),
                    from,
                    checked.size(),
                    message.start(),
                    expected);
            return;
        }
        enterView(message.view(), chosen);
    }

    /** Eve §6.1: the new view commits its start point and tells the execution replicas to roll back to it. */
    private void enterView(long newView, Certificate chosen) {
        LOG.info("{}: view {} starts from batch {}", name, newView, chosen == null ? 0 : chosen.seq());
        recovering = false;
        view = newView;
        changing = false;
        start = ViewChanges.startOf(chosen);
        committedSeq = start.seq();
        committedToken = start.seq() == 0 ? null : start;
        recentCommits.clear();
        slots.clear();
        suspects.clear();
        heardInView.clear();
        viewChanges.headMap(newView, true).clear();
        if (chosen != null && chosen.isAbove(best)) {
            best = chosen;
        }
        lastProgress = now;
        startConfirmed = false;
        startPrepares.clear();
        broadcastVerifiers(new Prepare(view, self, start));
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
