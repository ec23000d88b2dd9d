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
import io.eve.protocol.Message.StateRequest;
import io.eve.protocol.Message.Suspect;
import io.eve.protocol.Message.Verify;
import io.eve.protocol.Message.VerifyResponse;
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
    private long transfers;
    private long rollbacks;
    private long gapSince = -1;
    private boolean joining;

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
    }

    public void start(long nowNanos) {
        now = nowNanos;
        lastRetransmit = nowNanos;
        lastCommitAt = nowNanos;
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
            onClientRequest(request.request());
        } else if (message instanceof ExecuteBatch batch) {
            onExecuteBatch(from, batch);
        } else if (message instanceof VerifyResponse response && config.isVerifier(from)) {
            onVerifyResponse(from, response);
        } else if (message instanceof StateRequest request && config.isExecutionReplica(from) && from != self) {
            onStateRequest(from, request);
        } else if (message instanceof ChainTransfer transfer && config.isExecutionReplica(from)) {
            onChainTransfer(transfer);
        }
    }

    public void onTick(long nowNanos, long wallMillis) {
        now = nowNanos;
        wall = wallMillis;
        if (isPrimary()) {
            dispatcher.onTick(nowNanos, wallMillis);
        }
        if (now - lastRetransmit >= config.retransmitNanos()) {
            lastRetransmit = now;
            retransmit();
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
        sendVerify(outcome.token());
        evaluateAgreed();
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
        joining = false;
        if (target.seq() > stable) {
            commitUpTo(target);
        }
        drain();
        evaluateAgreed();
    }

    // ---- clients -------------------------------------------------------------------------------

    private void onClientRequest(Request request) {
        Reply done = committedReplies.find(request);
        if (done != null) {
            // Through release, not straight to the client: with durable storage a committed reply waits until
            // its batch is on disk, and a retry must not overtake that.
            actions.release(done);
            return;
        }
        // A client's requests may be in flight together: an older number than one already answered may still
        // be new. The primary's reply cache decides (and refuses one the client acknowledged).
        actions.replyFromState(request.clientId(), request.requestSeq());
        if (isPrimary()) {
            dispatcher.offer(request, now, wall);
        } else {
            actions.send(config.executionPrimary(view), new ClientRequest(request));
            String key = Dispatcher.key(request);
            if (forwarded.put(key, request) == null) {
                waitingSince.put(key, now);
            }
        }
    }

    /** Requests that wait too long for the primary: tell the verifiers (they change view at r + 1). */
    private void suspectIfStalled() {
        if (isPrimary() || waitingSince.isEmpty() || now - lastSuspectAt < config.viewTimeoutNanos()) {
            return;
        }
        long oldest =
                waitingSince.values().stream().mapToLong(Long::longValue).min().orElse(now);
        if (now - oldest > config.viewTimeoutNanos() && now - lastCommitAt > config.viewTimeoutNanos()) {
            lastSuspectAt = now;
            LOG.warn(
                    "{}: client requests wait on primary {} of view {}; suspecting it",
                    name,
                    config.executionPrimary(view),
                    view);
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
        if (isPrimary() && now - lastCommitAt >= config.retransmitNanos()) {
            for (Dispatcher.Dispatched dispatched : dispatcher.inFlight()) {
                ExecuteBatch message = new ExecuteBatch(view, 0, dispatched.batch(), dispatched.sequential());
                for (int replica : config.executionReplicas()) {
                    if (replica != self) {
                        actions.send(replica, message);
                    }
                }
            }
        }
        if (!isPrimary()) {
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
    }

    private void commitUpTo(Token token) {
        long seq = token.seq();
        for (Executed done : executed.headMap(seq, true).values()) {
            for (Reply reply : done.replies()) {
                committedReplies.add(reply);
                String key = reply.clientId() + ":" + reply.requestSeq();
                if (forwarded.remove(key) != null) {
                    waitingSince.remove(key);
                }
                actions.release(reply);
            }
        }
        executed.headMap(seq, true).clear();
        received.headMap(seq, true).clear();
        mine.headMap(seq, false).clear();
        stable = seq;
        stableToken = token;
        lastCommitAt = now;
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
        if (transferTarget == null || applying || !covers(chain, transferTarget)) {
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
        applying = true;
        actions.apply(transfer);
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
        joining = false;
        List<Request> orphans = new ArrayList<>();
        for (Batch batch : received.tailMap(start.seq(), false).values()) {
            orphans.addAll(batch.requests());
        }
        for (ExecuteBatch pending : buffered.tailMap(start.seq(), false).values()) {
            orphans.addAll(pending.batch().requests());
        }
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
        } else {
            LOG.error(
                    "{}: view {} starts from batch {}, below this replica's committed {}", name, newView, seq, stable);
        }
        waitingSince.replaceAll((request, since) -> now);
        if (isPrimary()) {
            dispatcher.lead(seq, orphans, now, wall);
        } else if (wasPrimary) {
            dispatcher.stepDown();
        }
        drain();
    }
}
