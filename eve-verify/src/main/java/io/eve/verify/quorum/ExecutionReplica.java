package io.eve.verify.quorum;

import io.eve.Reply;
import io.eve.Request;
import io.eve.batch.Batch;
import io.eve.execution.Executed;
import io.eve.execution.Token;
import io.eve.protocol.Message;
import io.eve.protocol.Message.ChainTransfer;
import io.eve.protocol.Message.ClientRequest;
import io.eve.protocol.Message.ExecuteBatch;
import io.eve.protocol.Message.Redirect;
import io.eve.protocol.Message.StateRequest;
import io.eve.protocol.Message.Suspect;
import io.eve.protocol.Message.Verify;
import io.eve.protocol.Message.VerifyResponse;
import io.eve.protocol.Message.ViewQuery;
import io.eve.protocol.Message.ViewReport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An execution replica of Eve's asynchronous quorum protocol (Eve §4, §6.1) as a deterministic state
 * machine: messages, ticks and execution outcomes come in with the time as an argument, and it answers
 * through {@link ExecutionActions}. No threads, sockets or clocks inside.
 *
 * <p>The primary of view {@code v} (replica {@code v mod nE}, its {@link Dispatcher}) batches requests
 * and sends {@code ExecuteBatch} to every execution replica; each executes and sends {@code Verify} to
 * every verifier. On {@code r + 1} matching {@code VerifyResponse}: same view and its own token, commit
 * (mark stable, release the replies); same view and another token, incremental state transfer from a
 * replica that holds the agreed token; a higher view, roll back to the agreed batch (or transfer to it)
 * and go on with the new primary, whose first batch runs sequentially.
 *
 * <p>Not thread-safe: one protocol thread calls it.
 */
public final class ExecutionReplica {
    private static final Logger LOG = LoggerFactory.getLogger(ExecutionReplica.class);

    private final QuorumConfig config;
    private final ExecutionActions actions;
    private final Dispatcher dispatcher;
    private final Refusals refusals;
    private final Votes votes;
    private final String name;
    private final int self;

    private long view;
    private long epoch;
    private long now;
    private long wall;
    private long stable;
    /**
     * The view in which this replica saw its stable batch commit; -1 for a batch recovered from its disk,
     * whose view the disk does not record.
     */
    private long stableView = -1;

    private Token stableToken = ViewChanges.ORIGIN;

    private long stageStable;
    private long expected = 1;
    private final NavigableMap<Long, ExecuteBatch> buffered = new TreeMap<>();
    private final NavigableMap<Long, ExecuteBatch> nextViewBuffer = new TreeMap<>();
    private long nextViewBufferView = -1;
    private final NavigableMap<Long, Batch> received = new TreeMap<>();
    private final NavigableMap<Long, Executed> executed = new TreeMap<>();
    private final NavigableMap<Long, Token> mine = new TreeMap<>();
    private final NavigableSet<Long> held = new TreeSet<>();
    private final NavigableMap<Long, Token> agreed = new TreeMap<>();
    private final CommittedReplies committedReplies = new CommittedReplies();
    /** Requests forwarded to the primary and not yet committed, by "clientId:requestSeq", and since when. */
    private final Map<String, Long> waitingSince = new LinkedHashMap<>();

    private final Map<String, Request> forwarded = new LinkedHashMap<>();
    private Token transferTarget;
    private long transferBase;
    private long transferAskedAt;
    private int transferServer;
    private boolean applying;
    private long lastRetransmit;
    private long lastCommitAt;
    private long lastSuspectAt = Long.MIN_VALUE / 2;
    /** The last sign that the view makes progress: a commit, a token the verifiers agreed, or the view's start. */
    private long lastProgressAt;

    private boolean everProgressed;
    /** The time between two signs of progress (decision 0028): the suspicion timeout adapts to it. */
    private final LatencyEstimate progressGap;

    private final java.util.SplittableRandom random;
    private long jitter;
    /** How long a batch takes from its execution here to its commit (decision 0028). */
    private final LatencyEstimate commitLatency;
    /** When this replica sent the {@code Verify} of each executed batch not yet committed. */
    private final NavigableMap<Long, Long> verifiedAt = new TreeMap<>();
    /** When each client was last told who the primary of this view is (at most once per retransmit period). */
    private final Map<Long, Long> toldPrimary = new java.util.HashMap<>();

    private long transfers;
    private long rollbacks;
    private long gapSince = -1;
    private boolean joining;
    /**
     * The highest view this replica may have numbered batches in during an earlier life: from its disk, or,
     * restarted without one, the highest view a quorum of verifiers reported; -1: none.
     */
    private long ledBefore = -1;
    /**
     * Restarted without a disk, this replica does not yet know a view at least as high as any it led before
     * (docs/quorum.md, "Restarting without a disk"): it leads none until it does.
     */
    private boolean ledUnknown;
    /** The nonce of this incarnation's {@code ViewQuery}, which every counted {@code ViewReport} echoes. */
    private final long viewQueryNonce;
    /** The view each verifier (other than one in this process) reported to this incarnation's query. */
    private final Map<Integer, Long> viewReports = new TreeMap<>();

    /**
     * @param joining whether this replica restarts with a fresh state: it serves no view until it learned
     *     the current one and caught up (a restarted primary must not number batches again)
     * @param seeds the source of batch seeds (the nondeterminism data a primary picks)
     */
    public ExecutionReplica(QuorumConfig config, ExecutionActions actions, boolean joining, LongSupplier seeds) {
        this(config, actions, joining, null, seeds);
    }

    /**
     * A replica whose stage recovered committed batch {@code recovered.seq()} from its disk (docs/quorum.md,
     * "Durable replicas"): it starts committed there, joining, and asks its peers only for the batches after
     * it (a state transfer from that batch on: the delta since its checkpoint and log).
     *
     * @param recovered the token of the recovered batch, null when nothing was recovered
     */
    public ExecutionReplica(
            QuorumConfig config, ExecutionActions actions, boolean joining, Token recovered, LongSupplier seeds) {
        this(config, actions, joining, recovered, List.of(), seeds);
    }

    /**
     * A replica whose stage recovered committed batch {@code recovered.seq()} and, after it, executed again the
     * batches {@code executedAfter} that its disk held as executed but not committed: it holds them as executed,
     * and sends their {@code Verify} again, as if it had just executed them.
     *
     * @param recovered the token of the recovered batch, null when nothing was recovered
     * @param executedAfter consecutive batches from {@code recovered.seq() + 1} on (empty: none)
     */
    public ExecutionReplica(
            QuorumConfig config,
            ExecutionActions actions,
            boolean joining,
            Token recovered,
            List<Executed> executedAfter,
            LongSupplier seeds) {
        this(config, actions, joining, recovered, executedAfter, seeds, new Refusals());
    }

    /**
     * As {@link #ExecutionReplica(QuorumConfig, ExecutionActions, boolean, Token, List, LongSupplier)},
     * counting what it refuses from its peers (docs/quorum.md, "Bounded memory") in {@code refusals}.
     */
    public ExecutionReplica(
            QuorumConfig config,
            ExecutionActions actions,
            boolean joining,
            Token recovered,
            List<Executed> executedAfter,
            LongSupplier seeds,
            Refusals refusals) {
        this.refusals = java.util.Objects.requireNonNull(refusals, "refusals");
        this.votes = new Votes(config.bounds().batches(), refusals);
        this.joining = joining || recovered != null || !executedAfter.isEmpty();
        if (!config.hostsExecution()) {
            throw new IllegalArgumentException("process " + config.self() + " hosts no execution replica in " + config);
        }
        this.config = config;
        this.actions = actions;
        this.self = config.self();
        this.name = "execution replica " + self;
        this.dispatcher = new Dispatcher(config, seeds, this::send);
        this.progressGap = new LatencyEstimate(config.viewTimeoutNanos(), config.viewTimeoutNanos() << 6, 0, 1);
        this.commitLatency = new LatencyEstimate(
                config.retransmitNanos(), Math.max(config.retransmitNanos(), config.viewTimeoutNanos() / 2), 0, 1);
        this.random = new java.util.SplittableRandom(0x5DEECE66DL * (self + 1));
        this.jitter = random.nextLong(Math.max(1, config.viewTimeoutNanos() / 4));
        if (recovered != null && recovered.seq() > 0) {
            stable = recovered.seq();
            stableToken = recovered;
            stageStable = recovered.seq();
            expected = recovered.seq() + 1;
            mine.put(recovered.seq(), recovered);
        }
        for (Executed done : executedAfter) {
            if (done.seq() != expected) {
                throw new IllegalArgumentException(
                        name + ": recovered batch " + done.seq() + " where batch " + expected + " was expected");
            }
            executed.put(done.seq(), done);
            mine.put(done.seq(), done.token());
            held.add(done.seq());
            received.put(done.seq(), done.batch());
            expected = done.seq() + 1;
        }
        ledUnknown = joining && recovered == null && executedAfter.isEmpty();
        viewQueryNonce = ledUnknown ? seeds.getAsLong() : 0;
    }

    /**
     * Before {@link #start}: this replica's disk says it numbered batches in view {@code view} (and none in a
     * later view) in an earlier life. It never leads a view up to that one again: numbering the batches of a
     * view twice, each time with other requests, would make a correct primary equivocate (docs/quorum.md,
     * "Durable replicas and verifiers"; the simulator's {@code bft-restart-all} seed 76). Such a replica
     * restarts joining.
     *
     * @param view -1 when the disk records no view led
     */
    public void ledBefore(long view) {
        ledBefore = view;
        if (view >= 0) {
            joining = true;
            ledUnknown = false;
        }
    }

    public void start(long nowNanos) {
        now = nowNanos;
        lastRetransmit = nowNanos;
        lastCommitAt = nowNanos;
        lastProgressAt = nowNanos;
        if (ledUnknown) {
            askViews();
        }
    }

    /**
     * Whether this replica restarted without a disk and has not yet learned how far the views went before
     * its restart: until it has, it leads no view.
     */
    public boolean ledViewUnknown() {
        return ledUnknown;
    }

    public long view() {
        return view;
    }

    public boolean isPrimary() {
        return !joining && config.executionPrimary(view) == self;
    }

    /** Whether this replica restarted and has not caught up yet. */
    public boolean joining() {
        return joining;
    }

    /** The last batch this replica committed. */
    public long committed() {
        return stable;
    }

    public long transfersInstalled() {
        return transfers;
    }

    /** Rollbacks to the start of a new view. */
    public long rollbacks() {
        return rollbacks;
    }

    /** Whether this replica waits for a state transfer. */
    /** Agreement votes this replica holds, over every verifier: at most the batch window per verifier. */
    public int pendingVotes() {
        return votes.size();
    }

    /** Batches from the primary waiting for their turn, in this view and the next. */
    public int bufferedBatches() {
        return buffered.size() + nextViewBuffer.size();
    }

    public boolean transferring() {
        return transferTarget != null;
    }

    // ---- inputs --------------------------------------------------------------------------------

    public void onMessage(int from, Message message, long nowNanos, long wallMillis) {
        now = nowNanos;
        wall = wallMillis;
        if (message instanceof ClientRequest request) {
            onClientRequest(from, request.request());
        } else if (message instanceof ExecuteBatch batch) {
            onExecuteBatch(from, batch);
        } else if (message instanceof VerifyResponse response && config.isVerifier(from)) {
            onVerifyResponse(from, response);
        } else if (message instanceof StateRequest request && config.isExecutionReplica(from) && from != self) {
            onStateRequest(from, request);
        } else if (message instanceof ChainTransfer transfer && config.isExecutionReplica(from)) {
            onChainTransfer(transfer);
        } else if (message instanceof ViewReport report && config.isVerifier(from)) {
            onViewReport(from, report);
        }
    }

    public void onTick(long nowNanos, long wallMillis) {
        now = nowNanos;
        wall = wallMillis;
        if (isPrimary()) {
            dispatcher.onTick(nowNanos, wallMillis);
        }
        if (now - lastRetransmit >= retransmitNanos()) {
            lastRetransmit = now;
            retransmit();
            if (ledUnknown) {
                askViews();
            }
        }
        if (transferTarget != null && !applying && now - transferAskedAt > 4 * config.retransmitNanos()) {
            transferServer++;
            retarget();
            askForTransfer();
            sendVerify(ViewChanges.ORIGIN); // learn the latest agreed token, in case the target is too old
        }
        suspectIfStalled();
    }

    /** The stage executed a batch (for the epoch it was handed in). */
    public void onExecuted(long executedEpoch, Executed outcome, long wallMillis) {
        wall = wallMillis;
        if (executedEpoch != epoch || outcome.seq() <= stable) {
            return;
        }
        executed.put(outcome.seq(), outcome);
        mine.put(outcome.seq(), outcome.token());
        held.add(outcome.seq());
        verifiedAt.put(outcome.seq(), now);
        if (outcome.sequential()) {
            // Before the Verify, so that over the transport's per-pair order a verifier holds them when the tokens
            // show they still differ (docs/state.md, "Diagnosing a batch that still differs").
            outcome.objectDigests().ifPresent(changed -> {
                Message.ObjectDigests report = Message.ObjectDigests.of(view, epoch, outcome.seq(), changed);
                for (int verifier : config.verifiers()) {
                    actions.send(verifier, report);
                }
            });
        }
        sendVerify(outcome.token());
        evaluateAgreed();
    }

    /**
     * With batch overlap: the stage runs the last requests of batch {@code seq}. A primary with nothing
     * dispatched after it closes its next batch now, so that the stage can start that batch's free requests
     * instead of idling until the batching delay ends (docs/state.md, "Overlapping batches").
     */
    public void onStageDraining(long seq, long wallMillis) {
        wall = wallMillis;
        if (isPrimary()) {
            dispatcher.onStageDraining(seq, wallMillis);
        }
    }

    /** The stage applied (or refused) a state transfer. */
    public void onApplied(ChainTransfer transfer, boolean applied, String reason) {
        applying = false;
        if (transferTarget == null || !covers(transfer.chain(), transferTarget)) {
            drain(); // a newer view or target overtook this transfer
            return;
        }
        if (!applied) {
            LOG.warn("{}: state transfer refused ({}); asking another replica", name, reason);
            transferServer++;
            askForTransfer();
            return;
        }
        transfers++;
        Token last = transfer.chain().get(transfer.chain().size() - 1);
        LOG.info(
                "{}: installed the state of batch {} by transfer (agreed batch {})",
                name,
                last.seq(),
                transferTarget.seq());
        held.clear();
        held.add(last.seq());
        for (Token token : transfer.chain()) {
            mine.put(token.seq(), token);
        }
        expected = last.seq() + 1;
        buffered.headMap(last.seq(), true).clear();
        Token target = transferTarget;
        transferTarget = null;
        if (config.executionPrimary(view) != self) {
            // Caught up. The view's own primary stays joining: its last life numbered batches in this view, and
            // its dispatcher, new, would number them again from 1 (the simulator's crash-rejoin-failover seed 3
            // sent batch 1 of view 0 again after a transfer to batch 40); the next view starts it afresh.
            joining = false;
        }
        if (target.seq() > stable) {
            commitUpTo(target);
        }
        drain();
        evaluateAgreed();
    }

    // ---- restarted without a disk (docs/quorum.md, "Restarting without a disk") ---------------------

    private void askViews() {
        for (int verifier : config.verifiers()) {
            if (verifier != self) {
                actions.send(verifier, new ViewQuery(self, viewQueryNonce));
            }
        }
    }

    /**
     * A verifier's answer to this incarnation's {@code ViewQuery}. Once {@code nV - u} verifiers outside this
     * process answered, the highest view they report bounds every view this replica led in an earlier life:
     * it led view v only after {@code nV - u} verifiers had left for v (the new view's {@code ViewChange}
     * quorum), and any two such sets share a verifier that still remembers it (a verifier never goes back to
     * a lower view, and one restarted without its state rejoins only the others' common view). This
     * process's own verifier restarted with it, so it does not count.
     */
    private void onViewReport(int from, ViewReport report) {
        if (!ledUnknown || from == self || report.verifier() != from || report.nonce() != viewQueryNonce) {
            return;
        }
        viewReports.merge(from, report.view(), Math::max);
        if (viewReports.size() < config.agreementQuorum()) {
            return;
        }
        ledUnknown = false;
        ledBefore = Math.max(ledBefore, java.util.Collections.max(viewReports.values()));
        LOG.info(
                "{}: restarted without a disk; the verifiers have reached view {}, so this replica leads no view up"
                        + " to it",
                name,
                ledBefore);
    }

    // ---- clients -------------------------------------------------------------------------------

    private void onClientRequest(int from, Request request) {
        if (committedReplies.answered(request)) {
            // The client holds its reply (a committed request of its own said so): a late copy, often a forward
            // sent again before its sender saw the request commit. Ordered again, it would only be refused.
            LOG.debug(
                    "{}: dropping request {}:{} from {}: its client acknowledged it",
                    name,
                    request.clientId(),
                    request.requestSeq(),
                    from);
            return;
        }
        Reply done = committedReplies.find(request);
        if (done != null) {
            // Through the host, not straight to the client: with durable storage a committed reply waits until
            // its batch is on disk, and a retry must not overtake that.
            actions.resend(done);
            return;
        }
        // A client's requests may be in flight together: an older number than one already answered may still
        // be new. The primary's reply cache decides (and refuses one the client acknowledged).
        actions.replyFromState(request.clientId(), request.requestSeq());
        if (isPrimary()) {
            dispatcher.offer(request, now, wall);
        } else if (config.executionPrimary(view) == self) {
            // This view's primary, restarted and joining: it batches nothing in this view, so the request waits
            // (and counts towards a suspicion of this view) instead of going round to itself.
            String key = Dispatcher.key(request);
            if (forwarded.put(key, request) == null) {
                waitingSince.put(key, now);
            }
        } else {
            int primary = config.executionPrimary(view);
            if (!isProcess(from)) {
                // A copy another replica forwarded waits for the next retransmission instead: two replicas that
                // each take the other for the primary (in different views) would pass it back and forth at once.
                actions.send(primary, new ClientRequest(request));
            }
            if (!joining && from == request.clientId() && !isProcess(from) && shouldRedirect(request.clientId())) {
                // The client sent it here itself: tell it this view's primary, so that it need not time out at an
                // old one (the request is forwarded all the same).
                actions.send(from, new Redirect(request.clientId(), request.requestSeq(), primary));
            }
            String key = Dispatcher.key(request);
            if (forwarded.put(key, request) == null) {
                waitingSince.put(key, now);
            }
        }
    }

    /**
     * Whether to tell {@code client}, which sent a request here itself, who the primary is: again whenever it
     * still does after a retransmit period. Once per view was not enough: a client whose attempt timed out moves
     * on to the next replica, and a backup that had told it once already forwarded all its later requests for
     * the rest of the view (each copy sent again every retransmit period until it committed, and answered
     * again at the primary).
     */
    private boolean shouldRedirect(long client) {
        Long last = toldPrimary.get(client);
        if (last != null && now - last < retransmitNanos()) {
            return false;
        }
        toldPrimary.put(client, now);
        return true;
    }

    /**
     * How often this replica sends again what may have been lost (decision 0028): the configured period, or the
     * estimate of how long its batches take to commit if that is longer (at most half the configured view
     * timeout), so that a slow cluster is not loaded further with copies of what is merely slow.
     */
    long retransmitNanos() {
        return commitLatency.timeoutNanos();
    }

    private boolean isProcess(int id) {
        return config.isExecutionReplica(id) || config.isVerifier(id);
    }

    /**
     * How long requests may wait without any progress of the view before this replica suspects the primary
     * (decision 0028): the estimate of the time between two signs of progress (mean plus four deviations, at
     * least the configured view timeout) plus a random quarter of the configured timeout; before the first
     * progress this replica sees, at least {@link ViewChangeDriver#STARTUP_GRACE} configured timeouts (the
     * primary may still be warming up).
     */
    long suspicionTimeoutNanos() {
        long timeout = progressGap.timeoutNanos() + jitter;
        return everProgressed ? timeout : Math.max(timeout, ViewChangeDriver.STARTUP_GRACE * config.viewTimeoutNanos());
    }

    /** The view made progress: a batch committed here, or the verifiers agreed a token of this view. */
    private void onViewProgress() {
        if (everProgressed) {
            progressGap.sample(now - lastProgressAt);
        }
        everProgressed = true;
        lastProgressAt = now;
    }

    /**
     * Requests that wait while the view makes no progress at all: tell the verifiers (they change view at
     * {@code r + 1}). A primary that is slow, while batches keep committing, is not suspected; nor is it
     * when this replica lags behind the others (it hears of their agreement before it commits itself).
     */
    private void suspectIfStalled() {
        long timeout = suspicionTimeoutNanos();
        if (isPrimary() || waitingSince.isEmpty() || now - lastSuspectAt < timeout) {
            return;
        }
        long oldest =
                waitingSince.values().stream().mapToLong(Long::longValue).min().orElse(now);
        if (now - oldest > timeout && now - lastProgressAt > timeout) {
            lastSuspectAt = now;
            LOG.warn(
                    "{}: client requests wait on primary {} of view {} with no progress for {} ms; suspecting it",
                    name,
                    config.executionPrimary(view),
                    view,
                    (now - lastProgressAt) / 1_000_000);
            for (int verifier : config.verifiers()) {
                actions.send(verifier, new Suspect(view));
            }
        }
    }

    // ---- execution -----------------------------------------------------------------------------

    private void send(Dispatcher.Dispatched dispatched) {
        ExecuteBatch message = new ExecuteBatch(view, 0, dispatched.batch(), dispatched.sequential());
        for (int replica : config.executionReplicas()) {
            if (replica != self) {
                actions.send(replica, message);
            }
        }
        onExecuteBatch(self, message);
    }

    private void onExecuteBatch(int from, ExecuteBatch message) {
        if (from != config.executionPrimary(message.view()) || message.view() < view || (joining && from == self)) {
            return;
        }
        long seq = message.batch().seq();
        if (seq - stable > config.bounds().batches()) {
            // docs/quorum.md, "Bounded memory": a correct primary runs at most the pipeline depth ahead.
            refusals.add(Refusals.Reason.FUTURE_EXECUTE);
            return;
        }
        if (message.view() > view) {
            if (message.view() != nextViewBufferView) {
                nextViewBuffer.clear();
                nextViewBufferView = message.view();
            }
            nextViewBuffer.putIfAbsent(seq, message);
            return;
        }
        if (seq < expected) {
            Token token = mine.get(seq);
            if (token != null && executed.containsKey(seq)) {
                sendVerify(token); // the primary asks again: our Verify may have been lost
            }
            return;
        }
        buffered.putIfAbsent(seq, message); // the first batch a primary sends for a number stands
        drain();
    }

    private void drain() {
        if (transferTarget != null || applying) {
            return;
        }
        for (ExecuteBatch next = buffered.remove(expected); next != null; next = buffered.remove(expected)) {
            received.put(expected, next.batch());
            actions.execute(epoch, next.batch(), next.sequential());
            expected++;
        }
    }

    private void sendVerify(Token token) {
        Verify verify = new Verify(view, token);
        for (int verifier : config.verifiers()) {
            actions.send(verifier, verify);
        }
    }

    private void retransmit() {
        for (Map.Entry<Long, Executed> entry : executed.entrySet()) {
            sendVerify(entry.getValue().token());
        }
        if (isPrimary() && now - lastCommitAt >= retransmitNanos()) {
            for (Dispatcher.Dispatched dispatched : dispatcher.inFlight()) {
                ExecuteBatch message = new ExecuteBatch(view, 0, dispatched.batch(), dispatched.sequential());
                for (int replica : config.executionReplicas()) {
                    if (replica != self) {
                        actions.send(replica, message);
                    }
                }
            }
        }
        if (!isPrimary() && config.executionPrimary(view) != self) {
            for (Request request : forwarded.values()) {
                actions.send(config.executionPrimary(view), new ClientRequest(request));
            }
        }
        if (joining
                || executed.isEmpty() && transferTarget == null && now - lastCommitAt >= config.viewTimeoutNanos()) {
            // Joining, idle, or the VerifyResponse of a new view was lost: ask the verifiers where they are.
            sendVerify(ViewChanges.ORIGIN);
        }
        evaluateAgreed();
    }

    // ---- verification outcomes (Eve §6.1) --------------------------------------------------------

    /** While fetching state: aim at the latest agreed token (servers keep tokens only from their stable on). */
    private void retarget() {
        if (transferTarget != null && !applying && !agreed.isEmpty() && agreed.lastKey() > transferTarget.seq()) {
            transferTarget = agreed.lastEntry().getValue();
        }
    }

    private void onVerifyResponse(int from, VerifyResponse message) {
        if (message.view() < view || (message.view() == view && message.token().seq() <= stable)) {
            return;
        }
        if (!Tokens.wellFormed(message.token())) {
            return;
        }
        if (votes.add(message.view(), message.token(), from, config.responseQuorum())) {
            if (message.view() > view) {
                enterView(message.view(), message.token());
            } else {
                onViewProgress();
                agreed.put(message.token().seq(), message.token());
                retarget();
                evaluateAgreed();
            }
        }
    }

    /** Acts on agreed tokens of this view, lowest first: commit, or transfer on a mismatch or gap. */
    private void evaluateAgreed() {
        agreed.headMap(stable, true).clear();
        while (!agreed.isEmpty() && transferTarget == null) {
            Map.Entry<Long, Token> first = agreed.firstEntry();
            Token own = mine.get(first.getKey());
            if (own != null && own.matches(first.getValue())) {
                // Progress: a gap after this one gets its own grace period. A gap seen once and closed by the
                // batch's arrival used to leave its start behind, so that the next short gap (a VerifyResponse
                // overtaking the primary's ExecuteBatch) fetched the state at once, and a replica that did so
                // under load stalled while every peer was busy (crash-rejoin seed 28: no commit for a view
                // timeout, then a suspicion of a healthy primary).
                gapSince = -1;
                commitUpTo(first.getValue());
                if (joining && config.executionPrimary(view) != self) {
                    // Caught up by executing the primary's batches (a replica restarted from its disk, a batch
                    // behind). The view's own primary stays joining: it must not number batches again.
                    joining = false;
                    LOG.info("{}: caught up at batch {} of view {}", name, stable, view);
                }
                continue;
            }
            Token latest = agreed.lastEntry().getValue();
            if (own != null) {
                LOG.warn(
                        "{}: diverged at batch {} ({} here, {} agreed); fetching the agreed state",
                        name,
                        first.getKey(),
                        own,
                        first.getValue());
                requestTransfer(latest);
            } else if (latest.seq() >= expected && !buffered.containsKey(expected)) {
                // The batches up to it may still be on their way; after a grace period, fetch the state.
                if (gapSince < 0) {
                    gapSince = now;
                } else if (now - gapSince >= config.retransmitNanos() || joining) {
                    gapSince = -1;
                    requestTransfer(latest);
                }
            } else {
                gapSince = -1;
            }
            return;
        }
        gapSince = -1;
    }

    private void commitUpTo(Token token) {
        long seq = token.seq();
        boolean acknowledged = false;
        for (Executed done : executed.headMap(seq, true).values()) {
            for (Reply reply : done.replies()) {
                committedReplies.add(reply);
                String key = reply.clientId() + ":" + reply.requestSeq();
                if (forwarded.remove(key) != null) {
                    waitingSince.remove(key);
                }
                actions.release(reply);
            }
            for (Request request : done.batch().requests()) {
                acknowledged |= committedReplies.acknowledge(request);
            }
        }
        if (acknowledged && !forwarded.isEmpty()) {
            // A forward whose client has been answered (it committed in a batch this replica did not execute,
            // or this replica took the copy in after its commit) would otherwise be sent again forever.
            forwarded.values().removeIf(request -> {
                if (committedReplies.answered(request)) {
                    waitingSince.remove(Dispatcher.key(request));
                    return true;
                }
                return false;
            });
        }
        Long sentAt = verifiedAt.get(seq);
        if (sentAt != null) {
            commitLatency.sample(now - sentAt);
        }
        verifiedAt.headMap(seq, true).clear();
        executed.headMap(seq, true).clear();
        received.headMap(seq, true).clear();
        mine.headMap(seq, false).clear();
        stable = seq;
        stableToken = token;
        stableView = view;
        lastCommitAt = now;
        onViewProgress();
        if (held.contains(seq)) {
            stageStable = seq;
            held.headSet(seq, true).clear();
            actions.markStable(seq);
        }
        agreed.headMap(seq, true).clear();
        votes.forget(view, seq);
        if (isPrimary()) {
            dispatcher.onCommitted(seq, wall);
        }
    }

    private void requestTransfer(Token target) {
        epoch++;
        transferTarget = target;
        transferBase = stageStable;
        executed.clear();
        verifiedAt.clear();
        mine.tailMap(stable, false).clear();
        held.clear();
        received.clear();
        transferServer = 0;
        askForTransfer();
    }

    private void askForTransfer() {
        int[] replicas = config.executionReplicas();
        int server = replicas[Math.floorMod(self + 1 + transferServer, replicas.length)];
        if (server == self) {
            server = replicas[Math.floorMod(self + 2 + transferServer++, replicas.length)];
        }
        transferAskedAt = now;
        actions.send(server, new StateRequest(view, transferBase, transferTarget));
    }

    /**
     * Serve a state transfer only from a state of the requester's view. The state served runs to this
     * replica's last executed batch, past the agreed token: a replica still in an older view would hand
     * out batches that the new view discards, and one that is joining or fetching state itself has none
     * to give. (A new view's primary that installed such a state stalled its view: its own batches were
     * dropped as already installed and its tokens chained to the old view's.) The requester asks another
     * replica after a while, by which time this one has entered the view.
     */
    private void onStateRequest(int from, StateRequest request) {
        if (request.view() != view || joining || transferTarget != null || applying) {
            LOG.debug(
                    "{}: not serving the state transfer asked by {} in view {} (here view {}{})",
                    name,
                    from,
                    request.view(),
                    view,
                    joining || transferTarget != null ? ", catching up" : "");
            return;
        }
        actions.serveTransfer(from, request.baseSeq(), request.agreed());
    }

    private void onChainTransfer(ChainTransfer transfer) {
        List<Token> chain = transfer.chain();
        if (transferTarget == null || applying) {
            return;
        }
        Token anchor = anchor(chain);
        if (anchor == null) {
            return;
        }
        boolean wellFormed = chain.stream().allMatch(Tokens::wellFormed) && Tokens.isChain(chain);
        Token last = chain.get(chain.size() - 1);
        if (!wellFormed
                || transfer.delta().baseSeq() != transferBase
                || transfer.delta().targetSeq() != last.seq()) {
            LOG.warn(
                    "{}: refusing a state transfer that does not lead from {} along a chain to the agreed token",
                    name,
                    transferBase);
            return;
        }
        // The chain's last token is the version the delta leads to, and it must be one the verifiers agreed on:
        // the target, or a newer agreed token of this view (every agreed token retargets the request while the
        // transfer travels, and a server that committed past the target serves its stable batch). A token
        // vouches for nothing after it, so a state past every agreed token could be invented (issue 20; the
        // simulator's bft-forge seeds 72 and 99 installed one). Waiting for a chain that reaches the newest
        // target could wait forever while the view keeps committing (crash-rejoin seed 12: a rejoined replica
        // fetched for 50 ms, every answer one batch short, then suspected the primary), so any agreed one does.
        transferTarget = anchor;
        applying = true;
        actions.apply(transfer);
    }

    /**
     * The agreed token {@code chain} ends at: the target, or else an agreed token of this view above the stable
     * batch; null if its last token is neither.
     */
    private Token anchor(List<Token> chain) {
        Token last = chain.get(chain.size() - 1);
        if (last.matches(transferTarget)) {
            return transferTarget;
        }
        Token known = agreed.get(last.seq());
        return known != null && known.seq() > stable && known.matches(last) ? known : null;
    }

    /**
     * Whether a transfer's chain holds {@code target} at its number. A chain asked for an older agreed
     * token still serves a newer target it reaches: its tokens link, so the agreed one anchors them all.
     * (A large state takes longer to send than the requester waits before it retargets; without this,
     * every transfer under load could arrive for a target already replaced.)
     */
    private static boolean covers(List<Token> chain, Token target) {
        long index = target.seq() - chain.get(0).seq();
        return index >= 0 && index < chain.size() && chain.get((int) index).matches(target);
    }

    /** Eve §6.1 rollback: a higher view starts from {@code start}; roll back to it or fetch it. */
    private void enterView(long newView, Token start) {
        LOG.info(
                "{}: view {} starts from batch {}; primary {}",
                name,
                newView,
                start.seq(),
                config.executionPrimary(newView));
        boolean wasPrimary = isPrimary();
        boolean joined = joining;
        joining = false;
        List<Request> orphans = new ArrayList<>();
        for (Batch batch : received.tailMap(start.seq(), false).values()) {
            orphans.addAll(batch.requests());
        }
        for (ExecuteBatch pending : buffered.tailMap(start.seq(), false).values()) {
            orphans.addAll(pending.batch().requests());
        }
        // The old view's pipeline ends here, before the view number changes: a commit of the new view's start
        // below must not send batches the old view numbered but never sent under the new view's number, where
        // this replica (its primary again) numbers them afresh (bft-forge seed 31: batch 222 of view 3 twice).
        List<Request> undispatched = wasPrimary ? dispatcher.stepDown() : List.of();
        view = newView;
        epoch++;
        rollbacks++;
        votes.forget(view, start.seq());
        agreed.clear();
        buffered.clear();
        if (nextViewBufferView == newView) {
            buffered.putAll(nextViewBuffer.tailMap(start.seq(), false));
        }
        nextViewBuffer.clear();
        received.clear();
        executed.tailMap(start.seq(), false).clear();
        verifiedAt.tailMap(start.seq(), false).clear();
        long seq = start.seq();
        Token own = seq == stable ? stableToken : mine.get(seq);
        boolean holds = seq == stageStable || held.contains(seq);
        if (seq == 0 && stable == 0 || holds && own != null && (own.matches(start) || seq == 0)) {
            actions.rollbackTo(seq);
            held.tailSet(seq, false).clear();
            mine.tailMap(seq, false).clear();
            expected = seq + 1;
            transferTarget = null;
            if (seq > stable) {
                commitUpTo(start);
            }
        } else if (seq >= stable) {
            requestTransfer(start);
        } else if (stableView < 0) {
            // Restarted from its disk, this replica does not know its view: the verifiers told it where a view
            // it already worked in started, and it recovered batches that view committed after its start (a
            // view starts at or above every batch committed before it). It keeps its state and stays joining,
            // a primary above all: its last life numbered batches in this view. The view's next commits catch
            // it up; if it is this view's primary, the verifiers' next view starts from the committed batches.
            joining = joined;
            LOG.info(
                    "{}: view {} started from batch {}, before the batch {} this replica recovered; keeping it",
                    name,
                    newView,
                    seq,
                    stable);
        } else {
            // A view change lost a commit (docs/quorum.md, "View change"): the view starts below a batch that
            // committed in view stableView, below it. Never expected; the simulator fails on it.
            LOG.error(
                    "{}: view {} starts from batch {}, below the batch {} this replica saw committed in view {}",
                    name,
                    newView,
                    seq,
                    stable,
                    stableView);
        }
        waitingSince.replaceAll((request, since) -> now);
        lastProgressAt = now; // the verifiers agreed on a new view
        toldPrimary.clear();
        jitter = random.nextLong(Math.max(1, config.viewTimeoutNanos() / 4));
        if (config.executionPrimary(newView) == self && (ledUnknown || newView <= ledBefore) && !joining) {
            // This replica may have numbered batches in this view in an earlier life and does not know which:
            // it must not number them again. It stays joining (the view's commits catch it up) and asks the
            // verifiers to move on; the replicas whose clients wait suspect the view as well.
            joining = true;
            LOG.warn(
                    "{}: view {} may be a view this replica led before its restart{}; declining to lead it",
                    name,
                    newView,
                    ledUnknown ? " (the verifiers have not said yet how far the views went)" : "");
            for (int verifier : config.verifiers()) {
                actions.send(verifier, new Suspect(newView));
            }
        }
        if (isPrimary()) {
            orphans.addAll(undispatched);
            // A request already committed (a copy that reached a batch twice) would only be refused again.
            orphans.removeIf(request -> committedReplies.answered(request) || committedReplies.find(request) != null);
            dispatcher.lead(seq, orphans, now, wall);
        } else if (wasPrimary) {
            // Requests this replica took in as primary but never put in a batch go to the new primary at once
            // (and again with the retransmissions until they commit), instead of waiting for clients to retry.
            int primary = config.executionPrimary(newView);
            for (Request request : undispatched) {
                String key = Dispatcher.key(request);
                if (forwarded.put(key, request) == null) {
                    waitingSince.put(key, now);
                }
                actions.send(primary, new ClientRequest(request));
            }
        }
        drain();
    }
}
