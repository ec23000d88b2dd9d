package io.eve.verify.primarybackup;

import io.eve.Reply;
import io.eve.batch.Batch;
import io.eve.execution.Executed;
import io.eve.execution.Token;
import io.eve.protocol.Message;
import io.eve.protocol.Message.BatchToken;
import io.eve.protocol.Message.ClientRequest;
import io.eve.protocol.Message.Commit;
import io.eve.protocol.Message.ExecuteBatch;
import io.eve.protocol.Message.Heartbeat;
import io.eve.protocol.Message.JoinRequest;
import io.eve.protocol.Message.ObjectDigests;
import io.eve.protocol.Message.Rollback;
import io.eve.protocol.Message.StateTransfer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The primary (Eve §6.2): closes batches, sends each to the backup and executes it, compares the backup's
 * token with its own in batch order, commits and releases replies on a match, orders a rollback on a
 * mismatch, and serves a returning backup a state transfer. It commits without the backup's matching token
 * only while it holds the fence's solo grant for its view (docs/primary-backup.md, "Fencing with a witness").
 *
 * <p>What it knows of the backup is a {@link Peer} state; batches in flight are {@link Slot}s. Confined to the
 * protocol thread.
 */
final class PrimaryRole implements Role {
    private static final Logger LOG = LoggerFactory.getLogger(PrimaryRole.class);

    private static final int SOLO_TOKENS_KEPT = 256;

    /** What the primary knows of its backup. */
    enum Peer {
        /** Alive and holding every committed batch: each batch waits for its token. */
        IN_STEP,
        /**
         * Alive again, catching up on batches committed here alone (by a transfer, then executing them): the
         * right to commit alone is kept until its token matched at or after {@link #catchUpTo}.
         */
        CATCHING_UP,
        /** Silent for the failure timeout: batches commit alone, with the fence's grant. */
        SILENT
    }

    /** The last JoinRequest served: a joiner repeats its request until it is served. */
    private record ServedJoin(long stableSeq, long at) {}

    /** After a takeover: the batches the stage was still running under the old view. */
    private record Inherited(long view, NavigableMap<Long, Batch> batches) {}

    private final PairContext ctx;
    private final NavigableMap<Long, Slot> slots = new TreeMap<>();
    private final Deque<Batch> waiting = new ArrayDeque<>();
    private boolean sequentialNext;
    private Peer peer;
    /** The batch the backup must confirm before it counts as caught up. */
    private long catchUpTo;
    // The last batch the backup's own token confirmed (a Commit was sent for it): all the heartbeat may announce
    // as committed, since the backup may hold an execution of a later batch that this primary rejected or never
    // compared.
    private long verified;
    // Tokens of batches committed alone while the backup was catching up (it executes them after the
    // transfer): its token for one of them verifies it after the fact.
    private final NavigableMap<Long, Token> soloCommitted = new TreeMap<>();
    private long lastProgress;
    private Optional<ServedJoin> lastJoinServed = Optional.empty();
    private Optional<Inherited> inherited = Optional.empty();

    private PrimaryRole(PairContext ctx, Peer peer) {
        this.ctx = ctx;
        this.peer = peer;
        this.verified = ctx.committed;
        this.catchUpTo = ctx.committed;
        this.lastProgress = ctx.clock;
    }

    /** The primary of a pair that starts together. */
    static PrimaryRole atStart(PairContext ctx) {
        return new PrimaryRole(ctx, Peer.IN_STEP);
    }

    /**
     * The backup took over: what it executed in the old view stands and commits (a client may have seen those
     * replies), on its execution alone; batches still inside the stage finish under the old view's numbers.
     */
    static PrimaryRole afterTakeOver(
            PairContext ctx, long oldView, NavigableMap<Long, Executed> executed, NavigableMap<Long, Batch> handed) {
        PrimaryRole primary = new PrimaryRole(ctx, Peer.SILENT);
        for (Map.Entry<Long, Executed> entry : executed.entrySet()) {
            Slot slot = new Slot(entry.getValue().batch(), false, true);
            slot.mine = Optional.of(entry.getValue());
            primary.slots.put(entry.getKey(), slot);
        }
        primary.inherited = Optional.of(new Inherited(oldView, new TreeMap<>(handed)));
        for (Map.Entry<Long, Batch> entry : handed.entrySet()) {
            primary.slots.put(entry.getKey(), new Slot(entry.getValue(), false, true));
        }
        return primary;
    }

    /** Goes on after a takeover: numbers batches after the inherited ones and commits what is executed. */
    void startAfterTakeOver() {
        long last = Math.max(ctx.committed, slots.isEmpty() ? ctx.committed : slots.lastKey());
        ctx.batcher.resumeAfter(last);
        tryCommit();
    }

    // ---- messages ------------------------------------------------------------------------------

    @Override
    public void onClientRequest(int from, ClientRequest message) {
        ctx.batcher.offer(message.request(), ctx.clock, ctx.wall).ifPresent(this::enqueue);
        if (waiting.isEmpty() && stageIdle()) {
            ctx.batcher.onIdle(ctx.wall).ifPresent(this::enqueue);
        }
    }

    @Override
    public void onExecuteBatch(ExecuteBatch message) {
        if (message.view() > ctx.view) {
            BackupRole.afterDemotion(ctx, message.view(), message.epoch(), true).onExecuteBatch(message);
        }
    }

    @Override
    public void onRollback(Rollback message) {
        if (message.view() > ctx.view) {
            BackupRole.afterDemotion(ctx, message.view(), message.epoch(), true);
        }
    }

    @Override
    public void onStateTransfer(StateTransfer message) {
        if (message.view() > ctx.view) {
            BackupRole.afterDemotion(ctx, message.view(), message.epoch(), false)
                    .onStateTransfer(message);
        }
    }

    @Override
    public void onCommit(Commit message) {
        // Only the primary commits.
    }

    @Override
    public void onBatchToken(BatchToken message) {
        if (message.view() != ctx.view || message.epoch() != ctx.epoch) {
            return;
        }
        long seq = message.token().seq();
        Slot slot = slots.get(seq);
        if (slot != null) {
            lastProgress = ctx.clock;
            slot.peerToken = Optional.of(message.token());
            tryCommit();
            return;
        }
        // A batch committed on this replica alone while the backup caught up, which the backup then executed
        // too: an equal token verifies it, and the backup may mark it stable. (A different one needs nothing
        // here: the next batch's token chains to it and will differ, which starts the usual repair.)
        Token mine = soloCommitted.get(seq);
        if (mine != null && mine.matches(message.token()) && seq > verified) {
            verified = seq;
            soloCommitted.headMap(seq, true).clear();
            ctx.send(new Commit(ctx.view, seq));
            onPeerVerified(seq);
        }
    }

    @Override
    public void onObjectDigests(ObjectDigests message) {
        if (message.view() == ctx.view && message.epoch() == ctx.epoch) {
            ctx.reports.onReport(ctx.peer, message);
        }
    }

    @Override
    public void onJoinRequest(JoinRequest message) {
        long joinerStable = message.stableSeq();
        // A joiner repeats its request until it is served; one transfer per failure timeout is enough.
        if (lastJoinServed.isPresent()
                && lastJoinServed.get().stableSeq() == joinerStable
                && ctx.clock - lastJoinServed.get().at() < ctx.config.failureTimeoutNanos()) {
            return;
        }
        lastJoinServed = Optional.of(new ServedJoin(joinerStable, ctx.clock));
        LOG.info("{}: node {} rejoins from batch {}; sending it the changes since", ctx.name, ctx.peer, joinerStable);
        // The transfer runs on the stage after every batch dispatched so far, so it carries them all: those
        // batches commit on this replica's execution alone; the ones dispatched from now on go to the peer.
        slots.values().forEach(slot -> slot.solo = true);
        peer = Peer.CATCHING_UP;
        catchUpTo = Math.max(ctx.committed, slots.isEmpty() ? ctx.committed : slots.lastKey());
        ctx.actions.transfer(ctx.peer, Math.min(joinerStable, ctx.committed), ctx.view, ctx.epoch);
        // Those batches no longer wait for a token: commit the ones already executed (after the transfer was
        // queued, so that it carries none of the batches this may dispatch).
        tryCommit();
    }

    @Override
    public void onHeartbeat(Heartbeat message) {
        if (message.view() > ctx.view) {
            String why =
                    "the peer is in view " + message.view() + ", ahead of " + ctx.view + "; rejoining as its backup";
            LOG.info("{}: {}", ctx.name, why);
            // A heartbeat carries no epoch: the later view's starts from 0 here (as in BackupRole.onHeartbeat), so
            // that its transfer is not taken for a stale one when this replica's epoch counted rollbacks of its own.
            ctx.adopt(message.view(), 0);
            ctx.enterView(message.view(), why);
            ctx.become(BackupRole.joining(ctx));
            ctx.send(new JoinRequest(ctx.view, ctx.committed));
        } else if (peer == Peer.SILENT) {
            // The backup is back (it was paused or cut off): have it wait for the state, then send it.
            ctx.send(new Rollback(ctx.view, ctx.epoch, message.stableSeq(), true));
            onJoinRequest(new JoinRequest(message.view(), message.stableSeq()));
        }
    }

    // ---- time and the stage --------------------------------------------------------------------

    @Override
    public void sendHeartbeat() {
        ctx.send(new Heartbeat(ctx.view, verified));
    }

    @Override
    public void onTick(long now) {
        if (peer != Peer.SILENT && !slots.isEmpty() && now - lastProgress > 3 * ctx.config.heartbeatIntervalNanos()) {
            // A lost ExecuteBatch or BatchToken would stall verification forever: ask again.
            lastProgress = now;
            for (Slot slot : slots.values()) {
                if (!slot.solo && slot.peerToken.isEmpty()) {
                    ctx.send(new ExecuteBatch(ctx.view, ctx.epoch, slot.batch, slot.sequential));
                }
            }
        }
        if (ctx.peerSilent() && peer != Peer.SILENT) {
            LOG.warn(
                    "{}: backup silent for {} ms; asking the fence to continue alone in view {}",
                    ctx.name,
                    ctx.silenceLimit() / 1_000_000,
                    ctx.view);
            peer = Peer.SILENT;
            tryCommit();
        }
        if (ctx.role() == this && stageIdle()) {
            ctx.batcher.onTick(now, ctx.wall).ifPresent(this::enqueue);
        }
    }

    @Override
    public void onFenceAnswered() {
        tryCommit();
    }

    @Override
    public void onExecuted(long executedView, long executedEpoch, Executed executed) {
        boolean current = executedView == ctx.view && executedEpoch == ctx.epoch;
        boolean fromOldView = inherited.isPresent()
                && executedView == inherited.get().view()
                && inherited.get().batches().remove(executed.seq()) != null;
        if (!current && !fromOldView) {
            return;
        }
        Slot slot = slots.get(executed.seq());
        if (slot != null && !slot.executed()) {
            slot.mine = Optional.of(executed);
            tryCommit();
            if (ctx.role() == this && waiting.isEmpty() && stageIdle()) {
                ctx.batcher.onIdle(ctx.wall).ifPresent(this::dispatch);
            }
        }
    }

    /**
     * The execution stage runs the last requests of batch {@code seq} and overlaps batches: it can take the
     * next batch now, so the primary closes what it holds instead of waiting for the stage to idle.
     */
    @Override
    public void onStageDraining(long seq) {
        Slot slot = slots.get(seq);
        if (slot == null || slot.executed() || slot.draining) {
            return;
        }
        slot.draining = true;
        if (waiting.isEmpty() && stageIdle()) {
            ctx.batcher.onIdle(ctx.wall).ifPresent(this::dispatch);
        }
    }

    @Override
    public void onApplied(StateTransfer transfer, boolean applied, String reason) {
        // A primary installs no state: a transfer it waited for as a backup no longer concerns it.
    }

    @Override
    public boolean peerAlive() {
        return peer != Peer.SILENT;
    }

    // ---- batching ------------------------------------------------------------------------------

    /**
     * Whether this replica's execution stage has nothing to run and the pipeline has room: every dispatched
     * batch is executed (some may still wait for the backup's token). Then the batcher closes what it holds
     * rather than let the stage sit idle (Eve §7.6). While the stage is busy the pending batch keeps filling
     * up to its size limit, even past the batching delay: closing it early would not start it sooner, only
     * split the same requests into more batches, each ending in a wait for its slowest request.
     */
    private boolean stageIdle() {
        if (slots.size() >= ctx.config.pipelineDepth()) {
            return false;
        }
        for (Slot slot : slots.values()) {
            if (!slot.executed() && !slot.draining) {
                return false;
            }
        }
        return true;
    }

    private void enqueue(Batch batch) {
        waiting.add(batch);
        dispatchWaiting();
    }

    private void dispatchWaiting() {
        while (!waiting.isEmpty() && slots.size() < ctx.config.pipelineDepth()) {
            dispatch(waiting.poll());
        }
        if (waiting.isEmpty() && stageIdle()) {
            ctx.batcher.onIdle(ctx.wall).ifPresent(this::dispatch);
        }
    }

    private void dispatch(Batch batch) {
        if (slots.isEmpty()) {
            lastProgress = ctx.clock;
        }
        boolean sequential = sequentialNext;
        sequentialNext = false;
        boolean alive = peer != Peer.SILENT;
        slots.put(batch.seq(), new Slot(batch, sequential, !alive));
        // The backup's copy first: the local execution may run inline, and the two should overlap.
        if (alive) {
            ctx.send(new ExecuteBatch(ctx.view, ctx.epoch, batch, sequential));
        }
        ctx.actions.execute(ctx.view, ctx.epoch, batch, sequential);
    }

    // ---- verification --------------------------------------------------------------------------

    /** Commits verified batches in order; stops at the first one still waiting, handles a mismatch. */
    private void tryCommit() {
        while (!slots.isEmpty()) {
            Slot slot = slots.firstEntry().getValue();
            if (!slot.executed()) {
                return;
            }
            if (slot.verified()) {
                commit(slot, true);
            } else if (slot.solo || peer == Peer.SILENT) {
                if (!trySolo()) {
                    return;
                }
                commit(slot, false);
            } else if (slot.peerToken.isEmpty()) {
                return;
            } else {
                onMismatch(slot);
                return;
            }
        }
        dispatchWaiting();
    }

    /**
     * Whether this primary may commit without the backup's token: it holds the fence's grant for its view.
     * Asks for it otherwise; a refusal means the backup took over, and this replica rejoins as its backup.
     */
    private boolean trySolo() {
        Fence.Solo solo = ctx.fence.trySolo(ctx.view, ctx.clock);
        if (solo == Fence.Solo.REFUSED) {
            onSoloRefused(ctx.fence.refusal());
        }
        return solo == Fence.Solo.HELD;
    }

    private void onSoloRefused(Message.FenceAnswer holder) {
        if (holder.view() > ctx.view && ctx.primaryOf(holder.view()) == ctx.peer) {
            LOG.warn(
                    "{}: the fence refused to let this primary commit alone: node {} holds view {}; rejoining as its"
                            + " backup (the batches not verified here are never released)",
                    ctx.name,
                    ctx.peer,
                    holder.view());
            // Epochs count rollbacks within the new primary's history: start below any it uses.
            BackupRole.afterDemotion(ctx, holder.view(), 0, true).markJoining();
        } else {
            // Another holder in this view or before it (it has not given the right back yet): wait and ask again.
            LOG.warn(
                    "{}: the fence refused to let this primary commit alone in view {} ({})",
                    ctx.name,
                    ctx.view,
                    holder);
        }
    }

    private void commit(Slot slot, boolean tellPeer) {
        lastProgress = ctx.clock;
        long seq = slot.seq();
        Executed mine = slot.mine.orElseThrow();
        slots.remove(seq);
        ctx.committed = seq;
        ctx.reports.onCommitted(seq);
        ctx.actions.markStable(seq);
        for (Reply reply : mine.replies()) {
            ctx.actions.release(reply);
        }
        if (tellPeer) {
            verified = seq;
            ctx.send(new Commit(ctx.view, seq));
            onPeerVerified(seq);
        } else {
            soloCommitted.put(seq, mine.token());
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
        if (peer == Peer.CATCHING_UP && seq >= catchUpTo) {
            peer = Peer.IN_STEP;
        }
        if (peer == Peer.IN_STEP
                && ctx.fence.holdsSolo(ctx.view)
                && slots.values().stream().noneMatch(s -> s.solo)) {
            LOG.info(
                    "{}: node {} caught up to batch {}; giving back the right to commit alone in view {}",
                    ctx.name,
                    ctx.peer,
                    seq,
                    ctx.view);
            ctx.fence.releaseSolo(ctx.view, ctx.clock);
        }
    }

    private void onMismatch(Slot slot) {
        long seq = slot.seq();
        ctx.epoch++;
        ctx.rollbacks++;
        List<Batch> again = new ArrayList<>();
        if (!slot.sequential) {
            LOG.warn(
                    "{}: tokens of batch {} differ ({} here, {} at the backup); rolling back to {} and"
                            + " re-executing sequentially",
                    ctx.name,
                    seq,
                    slot.mine.orElseThrow().token(),
                    slot.peerToken.orElseThrow(),
                    ctx.committed);
            slots.values().forEach(s -> again.add(s.batch));
            slots.clear();
            ctx.actions.rollbackTo(ctx.committed);
            ctx.send(new Rollback(ctx.view, ctx.epoch, ctx.committed, false));
            sequentialNext = true;
        } else {
            String diagnosis =
                    ctx.reports.diagnosePair(ctx.view, slot.mine.orElseThrow(), slot.peerToken.orElseThrow(), ctx.peer);
            LOG.warn(
                    "{}: batch {} still differs after sequential re-execution: nondeterminism outside the"
                            + " execution context; {}; the backup takes the primary's state",
                    ctx.name,
                    seq,
                    diagnosis);
            slots.remove(seq);
            slots.values().forEach(s -> again.add(s.batch));
            slots.clear();
            long before = ctx.committed;
            ctx.actions.rollbackTo(seq);
            ctx.send(new Rollback(ctx.view, ctx.epoch, before, true));
            ctx.actions.transfer(ctx.peer, before, ctx.view, ctx.epoch);
            // This batch commits on this replica's execution alone: only with the fence's grant, so that the
            // backup cannot take over without it until it has installed the transfer.
            slot.solo = true;
            slot.peerToken = Optional.empty();
            slots.put(seq, slot);
            peer = Peer.CATCHING_UP;
            catchUpTo = Math.max(catchUpTo, seq);
        }
        again.forEach(this::dispatch);
        if (slot.sequential) {
            // After the batches that come again, so that a batch the batcher closes now follows them.
            tryCommit();
        }
    }
}
