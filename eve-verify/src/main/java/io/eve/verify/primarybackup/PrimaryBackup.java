package io.eve.verify.primarybackup;

import io.eve.Reply;
import io.eve.batch.Batch;
import io.eve.batch.Batcher;
import io.eve.execution.Executed;
import io.eve.execution.Token;
import io.eve.protocol.Message;
import io.eve.protocol.Message.BatchToken;
import io.eve.protocol.Message.ClientRequest;
import io.eve.protocol.Message.Commit;
import io.eve.protocol.Message.ExecuteBatch;
import io.eve.protocol.Message.Heartbeat;
import io.eve.protocol.Message.JoinRequest;
import io.eve.protocol.Message.Redirect;
import io.eve.protocol.Message.Rollback;
import io.eve.protocol.Message.StateTransfer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Eve's synchronous primary-backup verification (Eve §6.2) as a deterministic state machine (DESIGN.md
 * section 9): it takes messages, execution outcomes and clock ticks, with the time as an argument, and
 * answers through {@link Actions}. No threads, sockets or clocks inside.
 *
 * <p>Both replicas execute every batch. The primary compares the backup's token with its own: equal, the
 * batch commits and its replies are released; different, both roll back to the last committed batch and
 * re-execute sequentially; different again, the primary's state is authoritative and the backup repairs
 * itself by incremental state transfer. With both alive every batch is compared, which masks a
 * concurrency bug that manifests on one replica (Eve §6.3). A replica silent for the failure timeout
 * counts as failed: the primary asks its {@link Fence} for the right to go on alone, the backup for the
 * right to take over in the next view. Nothing commits without the backup's matching token unless the
 * fence granted that right for the current view; with a witness, only one replica ever holds it, so no
 * pause or partition loses an acknowledged write; without one, the fence grants at once and safety relies
 * on timing (docs/primary-backup.md). A returning replica catches up by state transfer before it executes
 * anything.
 *
 * <p>Not thread-safe: one protocol thread calls it.
 */
public final class PrimaryBackup {
    private static final Logger LOG = LoggerFactory.getLogger(PrimaryBackup.class);

    /** Refusals in a row of transfers from our own committed batch after which the histories differ. */
    private static final int DIVERGED_AFTER_REFUSALS = 2;

    /**
     * Until a replica has heard its peer once, it waits this many failure timeouts before it counts the
     * peer as failed: two replicas started together on a loaded machine may take seconds to come up, and
     * each deciding alone that the other is dead is a split brain before the first request.
     */
    static final int STARTUP_GRACE_TIMEOUTS = 3;

    private static final int SOLO_TOKENS_KEPT = 256;

    private final PrimaryBackupConfig config;
    private final Actions actions;
    private final int peer;
    private final Batcher batcher;
    private final String name;
    private final Fence fence;
    // Whether the backup has shown, since it last returned, that it holds everything committed here alone:
    // only then may the primary give the right to commit alone back to the fence.
    private boolean peerCaughtUp = true;
    private long catchUpTo;

    private long view;
    private long epoch;
    private int refusedFromCommitted;
    private long rollbacks;
    private long transfers;
    private long committed;
    // The last batch the backup's own token confirmed (a Commit was sent for it): all the primary's
    // heartbeat may announce as committed, since the backup may hold an execution of a later batch that the
    // primary rejected or never compared.
    private long verified;
    // Tokens of batches committed alone while the backup was catching up (it executes them after the
    // transfer): its token for one of them verifies it after the fact.
    private final NavigableMap<Long, Token> soloCommitted = new TreeMap<>();
    private long lastHeard;
    private boolean heardPeer;
    private long lastHeartbeatSent;
    private long lastProgress;
    private long clock;
    private long wall;
    private boolean joining;

    // Primary.
    private boolean peerAlive = true;
    private long lastJoinServed = Long.MIN_VALUE;
    private long lastJoinServedAt;
    private boolean sequentialNext;
    private final NavigableMap<Long, Slot> slots = new TreeMap<>();
    private final Deque<Batch> waiting = new ArrayDeque<>();

    // Backup.
    private long expected = 1;
    private boolean awaitingTransfer;
    private boolean applying;
    /** The furthest batch a transfer of this epoch led to that came while another was being installed. */
    private long overtaken = -1;
    /** That transfer: if the one being installed is refused, this one may still fit. */
    private StateTransfer overtaking;

    private final NavigableMap<Long, ExecuteBatch> buffered = new TreeMap<>();
    private final NavigableMap<Long, Batch> handed = new TreeMap<>();
    private final NavigableMap<Long, Executed> executedHere = new TreeMap<>();

    // After a takeover: batches the stage was still running under the old view.
    private NavigableMap<Long, Batch> pendingInherited = new TreeMap<>();
    private long inheritedView = -1;

    /** A batch the primary dispatched, with what it knows of its verification so far. */
    private static final class Slot {
        final Batch batch;
        final boolean sequential;
        boolean solo;
        Executed mine;
        Token peerToken;
        /** The stage runs this batch's last requests (a hint: it may take the next batch now). */
        boolean draining;

        Slot(Batch batch, boolean sequential, boolean solo) {
            this.batch = batch;
            this.sequential = sequential;
            this.solo = solo;
        }
    }

    /**
     * @param joining whether this replica restarts and must catch up by state transfer before serving
     * @param seeds the source of batch seeds (the nondeterminism data the primary picks)
     */
    public PrimaryBackup(PrimaryBackupConfig config, Actions actions, boolean joining, LongSupplier seeds) {
        this(config, actions, joining, 0, seeds);
    }

    /**
     * @param joining whether this replica restarts and must catch up by state transfer before serving
     * @param recoveredSeq the last committed batch this replica recovered from its disk, 0 if none: it starts
     *     committed there, and a joining replica asks for the changes since
     * @param seeds the source of batch seeds (the nondeterminism data the primary picks)
     */
    public PrimaryBackup(
            PrimaryBackupConfig config, Actions actions, boolean joining, long recoveredSeq, LongSupplier seeds) {
        if (recoveredSeq < 0) {
            throw new IllegalArgumentException("recoveredSeq " + recoveredSeq + " is negative");
        }
        this.config = config;
        this.actions = actions;
        this.peer = config.peer();
        this.joining = joining;
        this.awaitingTransfer = joining;
        this.committed = recoveredSeq;
        this.verified = recoveredSeq;
        this.expected = recoveredSeq + 1;
        this.batcher = new Batcher(config.maxBatchSize(), config.maxBatchDelayNanos(), 1, seeds);
        this.batcher.resumeAfter(recoveredSeq);
        this.name = "node " + config.self();
        // Only a witness fence draws a number: a run without one keeps its batch seeds (simulator replays).
        this.fence =
                config.witness().isPresent() ? config.newFence(seeds.getAsLong(), actions::send) : new TimingFence();
    }

    /**
     * Before {@link #start}: the replica recovered committed batch {@code seq} from its disk (the stage holds
     * it) and starts in {@code view}; joining, it asks its peer only for what came after; not joining (the
     * launcher chose it to lead a restarted cluster), it orders batches from {@code seq + 1}.
     */
    public void resume(long seq, long view) {
        committed = seq;
        verified = seq;
        expected = seq + 1;
        this.view = view;
        batcher.resumeAfter(seq);
    }

    public void start(long now) {
        lastHeard = now;
        if (joining) {
            actions.send(peer, new JoinRequest(view, committed));
        }
    }

    /** Whether this replica restarted and has not caught up yet. */
    public boolean joining() {
        return joining;
    }

    public boolean isPrimary() {
        return !joining && config.primaryOf(view) == config.self();
    }

    public long view() {
        return view;
    }

    public long committed() {
        return committed;
    }

    /** The primary as far as this replica knows. */
    public int primary() {
        return config.primaryOf(view);
    }

    public boolean peerAlive() {
        return peerAlive;
    }

    /** Whether this replica holds the right to commit alone in its view (its peer has not caught up since). */
    public boolean soloHeld() {
        return fence.holdsSolo(view);
    }

    /** Rollbacks this replica ordered as primary (tokens differed). */
    public long rollbacks() {
        return rollbacks;
    }

    /** State transfers this replica installed. */
    public long transfersInstalled() {
        return transfers;
    }

    // ---- inputs --------------------------------------------------------------------------------

    public void onMessage(int from, Message message, long now, long wallMillis) {
        clock = now;
        wall = wallMillis;
        if (fence.isWitness(from)) {
            fence.onMessage(message, now);
            onFenceAnswered(wallMillis);
            return;
        }
        if (from == peer) {
            lastHeard = now;
            heardPeer = true;
        }
        if (message instanceof ClientRequest request) {
            onClientRequest(from, request, now, wallMillis);
        } else if (from != peer) {
            LOG.debug("{}: ignoring {} from {}, which is not the peer", name, message, from);
        } else if (message instanceof ExecuteBatch batch) {
            onExecuteBatch(batch);
        } else if (message instanceof BatchToken token) {
            onBatchToken(token);
        } else if (message instanceof Commit commit) {
            onCommit(commit);
        } else if (message instanceof Rollback rollback) {
            onRollback(rollback);
        } else if (message instanceof StateTransfer transfer) {
            onStateTransfer(transfer);
        } else if (message instanceof JoinRequest join) {
            onJoin(join.stableSeq(), now);
        } else if (message instanceof Heartbeat heartbeat) {
            onHeartbeat(heartbeat, now);
        }
    }

    public void onTick(long now, long wallMillis) {
        clock = now;
        wall = wallMillis;
        fence.onTick(view, now);
        if (now - lastHeartbeatSent >= config.heartbeatIntervalNanos()) {
            lastHeartbeatSent = now;
            if (!joining && !awaitingTransfer) {
                actions.send(peer, new Heartbeat(view, isPrimary() ? verified : committed));
            } else if (!applying) {
                actions.send(peer, new JoinRequest(view, committed));
            }
        }
        if (isPrimary() && peerAlive && !slots.isEmpty() && now - lastProgress > 3 * config.heartbeatIntervalNanos()) {
            // A lost ExecuteBatch or BatchToken would stall verification forever: ask again.
            lastProgress = now;
            for (Slot slot : slots.values()) {
                if (!slot.solo && slot.peerToken == null) {
                    actions.send(peer, new ExecuteBatch(view, epoch, slot.batch, slot.sequential));
                }
            }
        }
        boolean silent = now - lastHeard > silenceLimit();
        if (isPrimary()) {
            if (silent && peerAlive) {
                LOG.warn(
                        "{}: backup silent for {} ms; asking the fence to continue alone in view {}",
                        name,
                        silenceLimit() / 1_000_000,
                        view);
                peerAlive = false;
                peerCaughtUp = false;
                tryCommit(wallMillis);
            }
            if (stageIdle()) {
                batcher.onTick(now, wallMillis).ifPresent(batch -> enqueue(batch, wallMillis));
            }
        } else if (silent && !joining) {
            tryTakeOver(wallMillis);
        }
    }

    /** The witness answered (or probed): act on a grant or a refusal this replica waits for. */
    private void onFenceAnswered(long wallMillis) {
        if (isPrimary()) {
            tryCommit(wallMillis);
        } else if (!joining && clock - lastHeard > silenceLimit()) {
            tryTakeOver(wallMillis);
        }
    }

    /** The execution stage finished a batch. */
    public void onExecuted(long executedView, long executedEpoch, Executed executed, long wallMillis) {
        boolean current = executedView == view && executedEpoch == epoch;
        boolean inherited =
                isPrimary() && executedView == inheritedView && pendingInherited.remove(executed.seq()) != null;
        if (!current && !inherited) {
            return;
        }
        if (isPrimary()) {
            Slot slot = slots.get(executed.seq());
            if (slot != null && slot.mine == null) {
                slot.mine = executed;
                tryCommit(wallMillis);
                if (isPrimary() && waiting.isEmpty() && stageIdle()) {
                    batcher.onIdle(wallMillis).ifPresent(this::dispatch);
                }
            }
        } else if (executed.seq() > committed && handed.get(executed.seq()) == executed.batch()) {
            // Only the execution of the batch handed last for this number counts: a rollback or resync in the
            // same epoch (the primary's "take my state" path keeps it) clears what was handed, but the stage
            // still finishes what it had queued, on state the rollback then discards.
            handed.remove(executed.seq());
            executedHere.put(executed.seq(), executed);
            actions.send(peer, new BatchToken(view, epoch, executed.token()));
        }
    }

    /**
     * The execution stage runs the last requests of batch {@code seq} and overlaps batches: it can take
     * the next batch now, so the primary closes what it holds instead of waiting for the stage to idle.
     * Only a hint for batching.
     */
    public void onStageDraining(long seq, long wallMillis) {
        Slot slot = slots.get(seq);
        if (slot == null || slot.mine != null || slot.draining) {
            return;
        }
        slot.draining = true;
        if (isPrimary() && waiting.isEmpty() && stageIdle()) {
            batcher.onIdle(wallMillis).ifPresent(this::dispatch);
        }
    }

    /** The execution stage applied (or refused) a state transfer. */
    public void onApplied(StateTransfer transfer, boolean applied, String reason) {
        applying = false;
        if (!awaitingTransfer) {
            return;
        }
        if (!applied) {
            if (transfer.delta().baseSeq() == committed && ++refusedFromCommitted >= DIVERGED_AFTER_REFUSALS) {
                // The peer's changes since our last committed batch do not lead to its state: ours differs
                // at that batch, so both committed different histories (a split brain, primary-backup.md).
                // No incremental transfer can repair that, and asking again would loop forever.
                throw new IllegalStateException(name + ": the state committed here up to batch " + committed
                        + " differs from node " + peer + "'s (" + reason + "): the two replicas committed"
                        + " different histories, as after a split brain; stopping. Restart this replica with"
                        + " --join (empty state) to take the primary's state in full.");
            }
            if (overtaking != null && overtaking.view() == view && overtaking.epoch() == epoch) {
                // A later transfer of this epoch came meanwhile (the answer to a JoinRequest, say, from this
                // replica's committed batch): install it rather than ask again, since the primary serves one
                // JoinRequest per failure timeout.
                LOG.warn(
                        "{}: state transfer to batch {} refused ({}); installing the one to batch {} that came since",
                        name,
                        transfer.token().seq(),
                        reason,
                        overtaking.token().seq());
                StateTransfer next = overtaking;
                overtaking = null;
                overtaken = -1;
                applying = true;
                actions.apply(next);
                return;
            }
            LOG.warn(
                    "{}: state transfer to batch {} refused ({}); asking again",
                    name,
                    transfer.token().seq(),
                    reason);
            actions.send(peer, new JoinRequest(view, committed));
            return;
        }
        refusedFromCommitted = 0;
        long seq = transfer.token().seq();
        transfers++;
        LOG.info("{}: caught up to batch {} by state transfer in view {}", name, seq, view);
        committed = seq;
        expected = seq + 1;
        awaitingTransfer = false;
        joining = false;
        executedHere.clear();
        handed.clear();
        buffered.headMap(expected, false).clear();
        actions.markStable(seq);
        // The installed state matched the token it came with: telling the primary shows it that this replica
        // holds everything the transfer carried (it may give the right to commit alone back).
        actions.send(peer, new BatchToken(view, epoch, transfer.token()));
        if (overtaken > seq) {
            // A later transfer of this epoch came while this one was installed and was dropped; the primary
            // does not send again the batches it carried: ask for the changes since this one.
            LOG.info(
                    "{}: a transfer to batch {} came while installing; asking for the changes since {}",
                    name,
                    overtaken,
                    seq);
            overtaken = -1;
            overtaking = null;
            awaitingTransfer = true;
            actions.send(peer, new JoinRequest(view, committed));
            return;
        }
        overtaken = -1;
        overtaking = null;
        drainBuffered();
    }

    // ---- primary -------------------------------------------------------------------------------

    private void onClientRequest(int from, ClientRequest message, long now, long wallMillis) {
        if (!isPrimary()) {
            actions.send(
                    from,
                    new Redirect(message.request().clientId(), message.request().requestSeq(), primary()));
            return;
        }
        batcher.offer(message.request(), now, wallMillis).ifPresent(batch -> enqueue(batch, wallMillis));
        if (waiting.isEmpty() && stageIdle()) {
            batcher.onIdle(wallMillis).ifPresent(batch -> enqueue(batch, wallMillis));
        }
    }

    /**
     * Whether this replica's execution stage has nothing to run and the pipeline has room: every dispatched
     * batch is executed (some may still wait for the backup's token). Then the batcher closes what it holds
     * rather than let the stage sit idle (Eve §7.6). While the stage is busy the pending batch keeps filling
     * up to its size limit, even past the batching delay: closing it early would not start it sooner, only
     * split the same requests into more batches, each ending in a wait for its slowest request.
     */
    private boolean stageIdle() {
        if (slots.size() >= config.pipelineDepth()) {
            return false;
        }
        for (Slot slot : slots.values()) {
            if (slot.mine == null && !slot.draining) {
                return false;
            }
        }
        return true;
    }

    private void enqueue(Batch batch, long wallMillis) {
        waiting.add(batch);
        dispatchWaiting(wallMillis);
    }

    private void dispatchWaiting(long wallMillis) {
        while (!waiting.isEmpty() && slots.size() < config.pipelineDepth()) {
            dispatch(waiting.poll());
        }
        if (waiting.isEmpty() && stageIdle()) {
            batcher.onIdle(wallMillis).ifPresent(this::dispatch);
        }
    }

    private void dispatch(Batch batch) {
        if (slots.isEmpty()) {
            lastProgress = clock;
        }
        boolean sequential = sequentialNext;
        sequentialNext = false;
        Slot slot = new Slot(batch, sequential, !peerAlive);
        slots.put(batch.seq(), slot);
        // The backup's copy first: the local execution may run inline, and the two should overlap.
        if (peerAlive) {
            actions.send(peer, new ExecuteBatch(view, epoch, batch, sequential));
        }
        actions.execute(view, epoch, batch, sequential);
    }

    private void onBatchToken(BatchToken message) {
        if (!isPrimary() || message.view() != view || message.epoch() != epoch) {
            return;
        }
        long seq = message.token().seq();
        Slot slot = slots.get(seq);
        if (slot != null) {
            lastProgress = clock;
            slot.peerToken = message.token();
            tryCommit(wall);
            return;
        }
        // A batch committed on this replica alone while the backup caught up, which the backup then executed
        // too: an equal token verifies it, and the backup may mark it stable. (A different one needs nothing
        // here: the next batch's token chains to it and will differ, which starts the usual repair.)
        Token mine = soloCommitted.get(seq);
        if (mine != null && mine.matches(message.token()) && seq > verified) {
            verified = seq;
            soloCommitted.headMap(seq, true).clear();
            actions.send(peer, new Commit(view, seq));
            onPeerVerified(seq);
        }
    }

    /** Commits verified batches in order; stops at the first one still waiting, handles a mismatch. */
    private void tryCommit(long wallMillis) {
        while (!slots.isEmpty()) {
            Slot slot = slots.firstEntry().getValue();
            if (slot.mine == null) {
                return;
            }
            if (slot.mine.token().matches(slot.peerToken)) {
                commit(slot, true);
            } else if (slot.solo || !peerAlive) {
                if (!trySolo()) {
                    return;
                }
                commit(slot, false);
            } else if (slot.peerToken == null) {
                return;
            } else {
                onMismatch(slot);
                return;
            }
        }
        dispatchWaiting(wallMillis);
    }

    /**
     * Whether this primary may commit without the backup's token: it holds the fence's grant for its view.
     * Asks for it otherwise; a refusal means the backup took over, and this replica rejoins as its backup.
     */
    private boolean trySolo() {
        Fence.Solo solo = fence.trySolo(view, clock);
        if (solo == Fence.Solo.REFUSED) {
            onSoloRefused(fence.refusal());
        }
        return solo == Fence.Solo.HELD;
    }

    private void onSoloRefused(Message.FenceAnswer holder) {
        if (holder.view() > view && config.primaryOf(holder.view()) == peer) {
            LOG.warn(
                    "{}: the fence refused to let this primary commit alone: node {} holds view {}; rejoining as its"
                            + " backup (the batches not verified here are never released)",
                    name,
                    peer,
                    holder.view());
            soloCommitted.clear();
            // Epochs count rollbacks within the new primary's history: start below any it uses.
            resync(holder.view(), 0, true);
            joining = true;
        } else {
            // Another holder in this view or before it (it has not given the right back yet): wait and ask again.
            LOG.warn("{}: the fence refused to let this primary commit alone in view {} ({})", name, view, holder);
        }
    }

    private void commit(Slot slot, boolean tellPeer) {
        lastProgress = clock;
        long seq = slot.batch.seq();
        slots.remove(seq);
        committed = seq;
        actions.markStable(seq);
        for (Reply reply : slot.mine.replies()) {
            actions.release(reply);
        }
        if (tellPeer) {
            verified = seq;
            actions.send(peer, new Commit(view, seq));
            onPeerVerified(seq);
        } else {
            soloCommitted.put(seq, slot.mine.token());
            while (soloCommitted.size() > SOLO_TOKENS_KEPT) {
                soloCommitted.pollFirstEntry();
            }
            catchUpTo = Math.max(catchUpTo, seq);
        }
    }

    /**
     * The backup's token matched this replica's for batch {@code seq}. Once it matched one at or after every
     * batch committed here alone and after the last transfer, the backup holds all that was committed: the
     * right to commit alone goes back to the fence, so the backup may take over again if this replica fails.
     */
    private void onPeerVerified(long seq) {
        if (seq >= catchUpTo) {
            peerCaughtUp = true;
        }
        if (peerCaughtUp
                && peerAlive
                && fence.holdsSolo(view)
                && slots.values().stream().noneMatch(s -> s.solo)) {
            LOG.info(
                    "{}: node {} caught up to batch {}; giving back the right to commit alone in view {}",
                    name,
                    peer,
                    seq,
                    view);
            fence.releaseSolo(view, clock);
        }
    }

    private void onMismatch(Slot slot) {
        long seq = slot.batch.seq();
        epoch++;
        rollbacks++;
        List<Batch> again = new ArrayList<>();
        if (!slot.sequential) {
            LOG.warn(
                    "{}: tokens of batch {} differ ({} here, {} at the backup); rolling back to {} and"
                            + " re-executing sequentially",
                    name,
                    seq,
                    slot.mine.token(),
                    slot.peerToken,
                    committed);
            slots.values().forEach(s -> again.add(s.batch));
            slots.clear();
            actions.rollbackTo(committed);
            actions.send(peer, new Rollback(view, epoch, committed, false));
            sequentialNext = true;
        } else {
            LOG.warn(
                    "{}: batch {} still differs after sequential re-execution: nondeterminism outside the"
                            + " execution context; the backup takes the primary's state",
                    name,
                    seq);
            slots.remove(seq);
            slots.values().forEach(s -> again.add(s.batch));
            slots.clear();
            long before = committed;
            actions.rollbackTo(seq);
            actions.send(peer, new Rollback(view, epoch, before, true));
            actions.transfer(peer, before, view, epoch);
            // This batch commits on this replica's execution alone: only with the fence's grant, so that the
            // backup cannot take over without it until it has installed the transfer.
            slot.solo = true;
            slot.peerToken = null;
            slots.put(seq, slot);
            peerCaughtUp = false;
            catchUpTo = Math.max(catchUpTo, seq);
        }
        again.forEach(this::dispatch);
        if (slot.sequential) {
            // After the batches that come again, so that a batch the batcher closes now follows them.
            tryCommit(wall);
        }
    }

    private void onJoin(long joinerStable, long now) {
        if (!isPrimary() && !joining && primary() == peer) {
            LOG.warn("{}: the primary restarted and asks to rejoin; asking the fence to take over", name);
            tryTakeOver(wall);
        }
        if (!isPrimary()) {
            return;
        }
        // A joiner repeats its request until it is served; one transfer per failure timeout is enough.
        if (joinerStable == lastJoinServed && now - lastJoinServedAt < config.failureTimeoutNanos()) {
            return;
        }
        lastJoinServed = joinerStable;
        lastJoinServedAt = now;
        LOG.info("{}: node {} rejoins from batch {}; sending it the changes since", name, peer, joinerStable);
        // The transfer runs on the stage after every batch dispatched so far, so it carries them all: those
        // batches commit on this replica's execution alone; the ones dispatched from now on go to the peer.
        slots.values().forEach(slot -> slot.solo = true);
        peerAlive = true;
        peerCaughtUp = false;
        catchUpTo = Math.max(committed, slots.isEmpty() ? committed : slots.lastKey());
        actions.transfer(peer, Math.min(joinerStable, committed), view, epoch);
        // Those batches no longer wait for a token: commit the ones already executed (after the transfer was
        // queued, so that it carries none of the batches this may dispatch).
        tryCommit(wall);
    }

    // ---- backup --------------------------------------------------------------------------------

    private void onExecuteBatch(ExecuteBatch message) {
        if (message.view() < view || (message.view() == view && message.epoch() < epoch)) {
            return;
        }
        long seq = message.batch().seq();
        boolean newer = message.view() > view || message.epoch() > epoch;
        if (newer && !awaitingTransfer) {
            resync(message.view(), message.epoch(), true);
        }
        adopt(message.view(), message.epoch());
        if (seq >= expected) {
            buffered.put(seq, message);
        } else if (!newer && executedHere.containsKey(seq)) {
            // The primary asks again: its copy of the token was lost.
            actions.send(peer, new BatchToken(view, epoch, executedHere.get(seq).token()));
        }
        drainBuffered();
    }

    private void drainBuffered() {
        if (awaitingTransfer || isPrimary()) {
            return;
        }
        for (ExecuteBatch next = buffered.remove(expected); next != null; next = buffered.remove(expected)) {
            handed.put(expected, next.batch());
            actions.execute(view, epoch, next.batch(), next.sequential());
            expected++;
        }
    }

    private void onCommit(Commit message) {
        if (message.view() != view || isPrimary() || message.seq() >= expected || message.seq() <= committed) {
            return;
        }
        committed = message.seq();
        executedHere.headMap(committed, true).clear();
        actions.markStable(committed);
    }

    private void onRollback(Rollback message) {
        if (message.view() < view || (message.view() == view && message.epoch() < epoch)) {
            return;
        }
        boolean newer = message.view() > view || message.epoch() > epoch;
        if (!newer && awaitingTransfer && !message.awaitTransfer()) {
            return; // older than the transfer this replica waits for (only a reordering link delivers that)
        }
        if (message.toSeq() < committed || message.toSeq() >= expected) {
            // Not a version this replica holds: start over from its last committed batch instead.
            resync(message.view(), message.epoch(), true);
            return;
        }
        adopt(message.view(), message.epoch());
        actions.rollbackTo(message.toSeq());
        expected = message.toSeq() + 1;
        buffered.clear();
        handed.clear();
        executedHere.tailMap(message.toSeq(), false).clear();
        awaitingTransfer = message.awaitTransfer();
    }

    private void onStateTransfer(StateTransfer message) {
        if (message.view() < view || (message.view() == view && message.epoch() < epoch)) {
            return;
        }
        if (!awaitingTransfer && (message.view() > view || message.epoch() > epoch)) {
            // The Rollback that announced this transfer was lost: take the transfer all the same.
            resync(message.view(), message.epoch(), false);
        } else if (!awaitingTransfer && !applying && message.token().seq() >= expected) {
            // A second answer to a JoinRequest (one was sent while the first transfer was on its way): the
            // primary no longer sends the batches it carries, so this replica needs it.
            awaitingTransfer = true;
        }
        if (applying && message.view() == view && message.epoch() == epoch) {
            overtaken = Math.max(overtaken, message.token().seq());
            if (overtaking == null
                    || message.token().seq() >= overtaking.token().seq()) {
                overtaking = message;
            }
        }
        if (!awaitingTransfer || applying) {
            return;
        }
        adopt(message.view(), message.epoch());
        applying = true;
        overtaken = -1;
        overtaking = null;
        actions.apply(message);
    }

    private void onHeartbeat(Heartbeat message, long now) {
        if (message.view() == view && !isPrimary() && !joining && !awaitingTransfer) {
            onCommit(new Commit(view, message.stableSeq()));
        }
        if (message.view() > view) {
            LOG.info("{}: the peer is in view {}, ahead of {}; rejoining as its backup", name, message.view(), view);
            view = message.view();
            joining = true;
            awaitingTransfer = true;
            slots.clear();
            waiting.clear();
            soloCommitted.clear();
            actions.send(peer, new JoinRequest(view, committed));
        } else if (isPrimary() && !peerAlive) {
            // The backup is back (it was paused or cut off): have it wait for the state, then send it.
            actions.send(peer, new Rollback(view, epoch, message.stableSeq(), true));
            onJoin(message.stableSeq(), now);
        }
    }

    /**
     * The primary moved to a later view or epoch without this backup hearing how (the transport lost the
     * Rollback that announced it; the link is FIFO, so any later message shows it). What this replica
     * executed since its last committed batch may be what the primary rejected: drop it and catch up by
     * state transfer, as a joining replica does.
     */
    private void resync(long newView, long newEpoch, boolean askForTransfer) {
        LOG.warn(
                "{}: the primary is in view {} epoch {}, past {} epoch {}, and this replica missed how; catching"
                        + " up by state transfer from batch {}",
                name,
                newView,
                newEpoch,
                view,
                epoch,
                committed);
        view = newView;
        epoch = newEpoch;
        actions.rollbackTo(committed);
        expected = committed + 1;
        buffered.clear();
        handed.clear();
        executedHere.clear();
        slots.clear();
        waiting.clear();
        awaitingTransfer = true;
        if (askForTransfer) {
            actions.send(peer, new JoinRequest(view, committed));
        }
    }

    private void adopt(long newView, long newEpoch) {
        if (newView > view || newEpoch > epoch) {
            view = newView;
            epoch = newEpoch;
        }
    }

    /** How long the peer may be silent before it counts as failed. */
    private long silenceLimit() {
        return heardPeer ? config.failureTimeoutNanos() : STARTUP_GRACE_TIMEOUTS * config.failureTimeoutNanos();
    }

    /**
     * Eve §6.2: the backup takes over when the primary has been silent for the failure timeout, once the fence
     * grants it the next view. Until then it stays a backup; refused, it stays one and waits another timeout.
     */
    private void tryTakeOver(long wallMillis) {
        long target = view + 1;
        while (config.primaryOf(target) != config.self()) {
            target++;
        }
        Fence.Solo solo = fence.trySolo(target, clock);
        if (solo == Fence.Solo.HELD) {
            takeOver(target, wallMillis);
        } else if (solo == Fence.Solo.REFUSED) {
            Message.FenceAnswer holder = fence.refusal();
            LOG.warn(
                    "{}: the fence refused the takeover of view {} ({}): the primary may have committed alone;"
                            + " staying its backup",
                    name,
                    target,
                    holder);
            lastHeard = clock;
            if (holder.view() > view && config.primaryOf(holder.view()) == peer) {
                resync(holder.view(), 0, true);
            }
        }
    }

    private void takeOver(long target, long wallMillis) {
        long oldView = view;
        view = target;
        peerCaughtUp = false;
        LOG.warn("{}: primary silent for {} ms; taking over in view {}", name, silenceLimit() / 1_000_000, view);
        peerAlive = false;
        // What this replica executed in the old view stands: commit it (a client may have seen those replies).
        for (Map.Entry<Long, Executed> entry : executedHere.entrySet()) {
            Slot slot = new Slot(entry.getValue().batch(), false, true);
            slot.mine = entry.getValue();
            slots.put(entry.getKey(), slot);
        }
        executedHere.clear();
        long last = Math.max(committed, slots.isEmpty() ? committed : slots.lastKey());
        // Batches still inside the stage finish under the old view's numbers; wait for them, then go on.
        pendingInherited = new TreeMap<>(handed);
        inheritedView = oldView;
        for (Map.Entry<Long, Batch> entry : handed.entrySet()) {
            slots.put(entry.getKey(), new Slot(entry.getValue(), false, true));
            last = Math.max(last, entry.getKey());
        }
        handed.clear();
        buffered.clear();
        batcher.resumeAfter(last);
        tryCommit(wallMillis);
    }
}
