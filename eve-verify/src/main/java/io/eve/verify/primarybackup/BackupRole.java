package io.eve.verify.primarybackup;

import io.eve.batch.Batch;
import io.eve.execution.Executed;
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
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.LongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The backup (Eve §6.2): executes the batches the primary sends, in order, and answers each with its token;
 * marks a batch stable when the primary says it committed; rolls back when told; takes over in the next view
 * when the primary falls silent and the fence grants it. While {@link CatchingUp} it waits for a state
 * transfer before it executes anything.
 *
 * <p>A batch is <em>buffered</em> until all before it were handed to the stage, <em>handed</em> while the stage
 * runs it, and <em>executed</em> once its outcome came back (its token sent, not committed yet). Confined to the
 * protocol thread.
 */
final class BackupRole implements Role {
    private static final Logger LOG = LoggerFactory.getLogger(BackupRole.class);

    /** Refusals in a row of transfers from our own committed batch after which the histories differ. */
    private static final int DIVERGED_AFTER_REFUSALS = 2;

    private final PairContext ctx;
    private long expected;
    private final NavigableMap<Long, ExecuteBatch> buffered = new TreeMap<>();
    private final NavigableMap<Long, Batch> handed = new TreeMap<>();
    private final NavigableMap<Long, Executed> executed = new TreeMap<>();
    private Optional<CatchingUp> catchingUp;
    private int refusedFromCommitted;
    /** While joining: the peer has sent nothing but JoinRequests since {@code since} (it is catching up too). */
    private Optional<PeerJoining> peerJoining = Optional.empty();

    private record PeerJoining(long since, JoinRequest last) {}

    /** While joining: the peer's last heartbeat, in step in a view this node is the primary of by number. */
    private Optional<Heartbeat> peerInStep = Optional.empty();

    /** Whether this role logged that it gives back an earlier life's grant (once: it repeats every heartbeat). */
    private boolean gaveBackLogged;

    /** The latest view the fence reported when it refused this joiner a takeover: ask above it next time. */
    private long refusedBelow;

    private BackupRole(PairContext ctx, Optional<CatchingUp> catchingUp) {
        this.ctx = ctx;
        this.catchingUp = catchingUp;
        this.expected = ctx.committed + 1;
    }

    /** A backup that holds the state up to its committed batch and expects the next one. */
    static BackupRole inStep(PairContext ctx) {
        return new BackupRole(ctx, Optional.empty());
    }

    /** A replica that must catch up by state transfer before it serves (restarted, or demoted). */
    static BackupRole joining(PairContext ctx) {
        return new BackupRole(ctx, Optional.of(CatchingUp.joining()));
    }

    /** A primary that learned the peer moved on: it becomes the backup and catches up from its committed batch. */
    static BackupRole afterDemotion(PairContext ctx, long newView, long newEpoch, boolean askForTransfer) {
        BackupRole backup = inStep(ctx);
        ctx.become(backup);
        backup.resync(newView, newEpoch, askForTransfer);
        return backup;
    }

    boolean isJoining() {
        return catchingUp.map(CatchingUp::isJoining).orElse(false);
    }

    // ---- messages ------------------------------------------------------------------------------

    @Override
    public void onClientRequest(int from, ClientRequest message) {
        int primary = ctx.primaryOf(ctx.view);
        if (primary == ctx.self()) {
            // Joining in a view this replica is the primary of by number (it restarted): no one serves yet, and a
            // redirect to itself would send the client straight back. It retries after its attempt timeout.
            LOG.debug("{}: joining; not answering {}", ctx.name, message.request());
            return;
        }
        ctx.actions.send(
                from,
                new Redirect(message.request().clientId(), message.request().requestSeq(), primary));
    }

    @Override
    public void onExecuteBatch(ExecuteBatch message) {
        if (ctx.isStale(message.view(), message.epoch())) {
            return;
        }
        long seq = message.batch().seq();
        boolean newer = ctx.isNewer(message.view(), message.epoch());
        if (newer && catchingUp.isEmpty()) {
            resync(message.view(), message.epoch(), true);
        }
        ctx.adopt(message.view(), message.epoch());
        if (seq >= expected) {
            buffered.put(seq, message);
        } else if (!newer && executed.containsKey(seq)) {
            // The primary asks again: its copy of the token was lost.
            ctx.send(new BatchToken(ctx.view, ctx.epoch, executed.get(seq).token()));
        }
        drainBuffered();
    }

    @Override
    public void onBatchToken(BatchToken message) {
        // Only the primary compares tokens.
    }

    @Override
    public void onCommit(Commit message) {
        if (message.view() != ctx.view || message.seq() >= expected || message.seq() <= ctx.committed) {
            return;
        }
        ctx.committed = message.seq();
        executed.headMap(ctx.committed, true).clear();
        ctx.actions.markStable(ctx.committed);
    }

    @Override
    public void onRollback(Rollback message) {
        if (ctx.isStale(message.view(), message.epoch())) {
            return;
        }
        boolean newer = ctx.isNewer(message.view(), message.epoch());
        if (!newer && catchingUp.isPresent() && !message.awaitTransfer()) {
            return; // older than the transfer this replica waits for (only a reordering link delivers that)
        }
        if (message.toSeq() < ctx.committed || message.toSeq() >= expected) {
            // Not a version this replica holds: start over from its last committed batch instead.
            resync(message.view(), message.epoch(), true);
            return;
        }
        ctx.adopt(message.view(), message.epoch());
        ctx.actions.rollbackTo(message.toSeq());
        expected = message.toSeq() + 1;
        buffered.clear();
        handed.clear();
        executed.tailMap(message.toSeq(), false).clear();
        if (message.awaitTransfer()) {
            catchingUp = Optional.of(catchingUp.orElseGet(CatchingUp::resyncing));
        } else if (!isJoining()) {
            // A joining replica holds no more than its committed batch: it keeps waiting for the state.
            catchingUp = Optional.empty();
        }
    }

    @Override
    public void onStateTransfer(StateTransfer message) {
        if (ctx.isStale(message.view(), message.epoch())) {
            return;
        }
        if (catchingUp.isEmpty() && ctx.isNewer(message.view(), message.epoch())) {
            // The Rollback that announced this transfer was lost: take the transfer all the same.
            resync(message.view(), message.epoch(), false);
        } else if (catchingUp.isEmpty() && message.token().seq() >= expected) {
            // A second answer to a JoinRequest (one was sent while the first transfer was on its way): the
            // primary no longer sends the batches it carries, so this replica needs it.
            catchingUp = Optional.of(CatchingUp.resyncing());
        }
        if (catchingUp.isEmpty()) {
            return;
        }
        CatchingUp waiting = catchingUp.get();
        if (waiting.isInstalling()) {
            if (message.view() == ctx.view && message.epoch() == ctx.epoch) {
                waiting.overtakenBy(message);
            }
            return;
        }
        ctx.adopt(message.view(), message.epoch());
        waiting.install(message);
        ctx.actions.apply(message);
    }

    @Override
    public void onJoinRequest(JoinRequest message) {
        if (isJoining()) {
            onJoinWhileJoining(message);
        } else if (ctx.primaryOf(ctx.view) == ctx.peer) {
            LOG.warn("{}: the primary restarted and asks to rejoin; asking the fence to take over", ctx.name);
            tryTakeOver();
        }
        if (ctx.role() instanceof PrimaryRole primary) {
            primary.onJoinRequest(message);
        }
    }

    @Override
    public void onHeartbeat(Heartbeat message) {
        if (message.view() == ctx.view && catchingUp.isEmpty()) {
            onCommit(new Commit(ctx.view, message.stableSeq()));
        }
        if (isJoining() && message.view() == ctx.view && ctx.primaryOf(ctx.view) == ctx.self()) {
            peerInStep = Optional.of(message);
            // Restarted as the primary of the peer's view by number, while the peer, in step, waits for that
            // primary: if an earlier life of this node held the right to commit alone, the fence refuses the
            // peer its takeover for good (docs/primary-backup.md, "A holder that restarts").
            if (message.stableSeq() >= ctx.committed) {
                // The peer committed every batch this node did, so that right goes back.
                giveBackEarlierGrant("its peer, in step in view " + ctx.view + ", committed up to batch "
                        + message.stableSeq() + " and waits for it as primary");
            } else if (ctx.fence.arbitrated()
                    && ctx.recoveredEveryAcknowledged
                    && !catchingUp.get().isInstalling()) {
                // The peer lacks batches this node committed (alone, perhaps): this node goes on from its own
                // history, as the longer one does when both join. Only where the witness arbitrates (the peer
                // asks for the same right, and a timing fence would grant both) and where that history holds
                // every batch this node acknowledged (sync=batch; else the peer may hold some the disk lost).
                long peerSeq = message.stableSeq();
                takeOverWithLongerHistory(
                        message.view(),
                        target -> "restarted with batches up to " + ctx.committed + " committed while its peer,"
                                + " in step in view " + ctx.view + ", committed only up to batch " + peerSeq
                                + ": taking over in view " + target + " and sending it the state",
                        "restarted with the longer history");
            }
        }
        if (message.view() > ctx.view) {
            String why =
                    "the peer is in view " + message.view() + ", ahead of " + ctx.view + "; rejoining as its backup";
            LOG.info("{}: {}", ctx.name, why);
            // A heartbeat carries no epoch: the later view's starts from 0 here, so that its transfer, of whatever
            // epoch, is not taken for a stale one (a primary restarted from its disk leads from epoch 0 while this
            // replica counted rollbacks of the view before).
            ctx.adopt(message.view(), 0);
            ctx.enterView(message.view(), why);
            catchingUp.ifPresentOrElse(CatchingUp::markJoining, () -> catchingUp = Optional.of(CatchingUp.joining()));
            ctx.send(new JoinRequest(ctx.view, ctx.committed));
        }
    }

    @Override
    public void onHeard(Message message) {
        if (!(message instanceof JoinRequest)) {
            peerJoining = Optional.empty();
        }
    }

    // ---- time and the stage --------------------------------------------------------------------

    @Override
    public void sendHeartbeat() {
        if (catchingUp.isEmpty()) {
            ctx.send(new Heartbeat(ctx.view, ctx.committed));
        } else if (!catchingUp.get().isInstalling()) {
            ctx.send(new JoinRequest(ctx.view, ctx.committed));
        }
    }

    @Override
    public void onTick(long now) {
        if (ctx.peerSilent() && !isJoining()) {
            tryTakeOver();
        }
    }

    @Override
    public void onFenceAnswered() {
        if (!isJoining() && ctx.peerSilent()) {
            tryTakeOver();
        } else if (isJoining() && peerJoining.isPresent()) {
            JoinRequest last = peerJoining.get().last();
            onJoinWhileJoining(last);
            if (ctx.role() instanceof PrimaryRole primary) {
                primary.onJoinRequest(last);
            }
        } else if (isJoining() && peerInStep.isPresent()) {
            onHeartbeat(peerInStep.get()); // asks again, or takes over with the grant that just came
        }
    }

    @Override
    public void onExecuted(long executedView, long executedEpoch, Executed outcome) {
        if (executedView != ctx.view || executedEpoch != ctx.epoch) {
            return;
        }
        if (outcome.seq() > ctx.committed && handed.get(outcome.seq()) == outcome.batch()) {
            // Only the execution of the batch handed last for this number counts: a rollback or resync in the
            // same epoch (the primary's "take my state" path keeps it) clears what was handed, but the stage
            // still finishes what it had queued, on state the rollback then discards.
            handed.remove(outcome.seq());
            executed.put(outcome.seq(), outcome);
            // Before the token, so that over the transport's per-pair order the primary holds them when the token
            // makes it compare (docs/state.md, "Diagnosing a batch that still differs").
            if (outcome.sequential()) {
                outcome.objectDigests()
                        .ifPresent(changed ->
                                ctx.send(Message.ObjectDigests.of(ctx.view, ctx.epoch, outcome.seq(), changed)));
            }
            ctx.send(new BatchToken(ctx.view, ctx.epoch, outcome.token()));
        }
    }

    @Override
    public void onStageDraining(long seq) {
        // Only the primary closes batches.
    }

    @Override
    public void onApplied(StateTransfer transfer, boolean applied, String reason) {
        if (catchingUp.isEmpty() || !catchingUp.get().isInstalling(transfer)) {
            return;
        }
        CatchingUp waiting = catchingUp.get();
        waiting.installed();
        if (applied) {
            onInstalled(transfer, waiting);
            return;
        }
        if (transfer.delta().baseSeq() == ctx.committed && ++refusedFromCommitted >= DIVERGED_AFTER_REFUSALS) {
            // The peer's changes since our last committed batch do not lead to its state: ours differs
            // at that batch, so both committed different histories (a split brain, primary-backup.md).
            // No incremental transfer can repair that, and asking again would loop forever.
            throw new IllegalStateException(ctx.name + ": the state committed here up to batch " + ctx.committed
                    + " differs from node " + ctx.peer + "'s (" + reason + "): the two replicas committed"
                    + " different histories, as after a split brain; stopping. Restart this replica with"
                    + " --join (empty state) to take the primary's state in full.");
        }
        Optional<StateTransfer> next = waiting.takeOvertaking();
        if (next.isPresent() && next.get().view() == ctx.view && next.get().epoch() == ctx.epoch) {
            // A later transfer of this epoch came meanwhile (the answer to a JoinRequest, say, from this
            // replica's committed batch): install it rather than ask again, since the primary serves one
            // JoinRequest per failure timeout.
            LOG.warn(
                    "{}: state transfer to batch {} refused ({}); installing the one to batch {} that came since",
                    ctx.name,
                    transfer.token().seq(),
                    reason,
                    next.get().token().seq());
            waiting.install(next.get());
            ctx.actions.apply(next.get());
            return;
        }
        LOG.warn(
                "{}: state transfer to batch {} refused ({}); asking again",
                ctx.name,
                transfer.token().seq(),
                reason);
        ctx.send(new JoinRequest(ctx.view, ctx.committed));
    }

    private void onInstalled(StateTransfer transfer, CatchingUp waiting) {
        refusedFromCommitted = 0;
        long seq = transfer.token().seq();
        ctx.transfers++;
        LOG.info("{}: caught up to batch {} by state transfer in view {}", ctx.name, seq, ctx.view);
        ctx.committed = seq;
        expected = seq + 1;
        catchingUp = Optional.empty();
        executed.clear();
        handed.clear();
        buffered.headMap(expected, false).clear();
        ctx.actions.markStable(seq);
        // The installed state matched the token it came with: telling the primary shows it that this replica
        // holds everything the transfer carried (it may give the right to commit alone back).
        ctx.send(new BatchToken(ctx.view, ctx.epoch, transfer.token()));
        Optional<StateTransfer> overtaking = waiting.takeOvertaking();
        if (overtaking.isPresent() && overtaking.get().token().seq() > seq) {
            // A later transfer of this epoch came while this one was installed and was dropped; the primary
            // does not send again the batches it carried: ask for the changes since this one.
            LOG.info(
                    "{}: a transfer to batch {} came while installing; asking for the changes since {}",
                    ctx.name,
                    overtaking.get().token().seq(),
                    seq);
            catchingUp = Optional.of(CatchingUp.resyncing());
            ctx.send(new JoinRequest(ctx.view, ctx.committed));
            return;
        }
        drainBuffered();
    }

    @Override
    public boolean peerAlive() {
        return !ctx.peerSilent();
    }

    // ---- internals -----------------------------------------------------------------------------

    private void drainBuffered() {
        if (catchingUp.isPresent()) {
            return;
        }
        for (ExecuteBatch next = buffered.remove(expected); next != null; next = buffered.remove(expected)) {
            handed.put(expected, next.batch());
            ctx.actions.execute(ctx.view, ctx.epoch, next.batch(), next.sequential());
            expected++;
        }
    }

    /**
     * The primary moved to a later view or epoch without this backup hearing how (the transport lost the
     * Rollback that announced it; the link is FIFO, so any later message shows it). What this replica
     * executed since its last committed batch may be what the primary rejected: drop it and catch up by
     * state transfer, as a joining replica does. A transfer being installed stays installed.
     */
    void resync(long newView, long newEpoch, boolean askForTransfer) {
        String why = "the primary is in view " + newView + " epoch " + newEpoch + ", past " + ctx.view + " epoch "
                + ctx.epoch + ", and this replica missed how; catching up by state transfer from batch "
                + ctx.committed;
        LOG.warn("{}: {}", ctx.name, why);
        ctx.enterView(newView, why);
        ctx.epoch = newEpoch;
        ctx.actions.rollbackTo(ctx.committed);
        expected = ctx.committed + 1;
        buffered.clear();
        handed.clear();
        executed.clear();
        catchingUp = Optional.of(catchingUp.orElseGet(CatchingUp::resyncing));
        if (askForTransfer) {
            ctx.send(new JoinRequest(ctx.view, ctx.committed));
        }
    }

    /** This replica (demoted after a refusal) holds no more than its committed batch until it catches up. */
    void markJoining() {
        catchingUp.ifPresentOrElse(CatchingUp::markJoining, () -> catchingUp = Optional.of(CatchingUp.joining()));
    }

    /**
     * Eve §6.2: the backup takes over when the primary has been silent for the failure timeout, once the fence
     * grants it the next view. Until then it stays a backup; refused, it stays one and waits another timeout.
     * Not while a transfer is being installed: the stage's state is settled first.
     */
    private void tryTakeOver() {
        if (catchingUp.map(CatchingUp::isInstalling).orElse(false)) {
            return;
        }
        long target = ctx.nextOwnView(ctx.view);
        Fence.Solo solo = ctx.fence.trySolo(target, ctx.clock);
        if (solo == Fence.Solo.HELD) {
            String why = "primary silent for " + ctx.silenceLimit() / 1_000_000 + " ms; taking over in view " + target;
            LOG.warn("{}: {}", ctx.name, why);
            takeOver(target, why);
        } else if (solo == Fence.Solo.REFUSED) {
            Message.FenceAnswer holder = ctx.fence.refusal();
            LOG.warn(
                    "{}: the fence refused the takeover of view {} ({}): the primary may have committed alone;"
                            + " staying its backup",
                    ctx.name,
                    target,
                    holder);
            ctx.lastHeard = ctx.clock;
            if (holder.view() > ctx.view && ctx.primaryOf(holder.view()) == ctx.peer) {
                resync(holder.view(), 0, true);
            }
        }
    }

    /**
     * Both replicas are joining (a whole-cluster restart): each waits for the other's state, and nobody serves.
     * The one with the longer committed history (docs/primary-backup.md, "Whole-cluster restart") takes over
     * into a view above both, with the fence's grant since the other lacks its state, and then serves it a
     * transfer like any joiner. Only once the peer sent nothing but JoinRequests for a failure timeout: a peer
     * that is a backup resyncing, not a joiner, takes over on the first one.
     */
    private void onJoinWhileJoining(JoinRequest message) {
        if (!holdsLongerHistory(message)) {
            // The peer goes on from its history, which holds every batch this node committed; a right to commit
            // alone that an earlier life of this node still holds at the fence would refuse it for good.
            giveBackEarlierGrant("both replicas are joining, and its peer's history (committed up to batch "
                    + message.stableSeq() + ") goes on");
        }
        long since = peerJoining.map(PeerJoining::since).orElse(ctx.clock);
        peerJoining = Optional.of(new PeerJoining(since, message));
        if (ctx.clock - since < ctx.config.failureTimeoutNanos()
                || !holdsLongerHistory(message)
                || catchingUp.get().isInstalling()) {
            return;
        }
        takeOverWithLongerHistory(
                message.view(),
                target -> "both replicas are joining; this one committed up to batch " + ctx.committed
                        + ", its peer up to " + message.stableSeq() + ": taking over in view " + target
                        + " and sending it the state",
                "both replicas are joining");
    }

    /**
     * This joiner's committed history is the longer one (docs/primary-backup.md, "Whole-cluster restart" and "A
     * holder that restarts"): it asks the fence for a view above both and above any the fence refused it, and
     * once granted takes over and serves the peer a transfer like any joiner.
     */
    private void takeOverWithLongerHistory(long peerView, LongFunction<String> whyInView, String situation) {
        long target = ctx.nextOwnView(Math.max(Math.max(ctx.view, peerView), refusedBelow));
        Fence.Solo solo = ctx.fence.trySolo(target, ctx.clock);
        if (solo == Fence.Solo.HELD) {
            String why = whyInView.apply(target);
            LOG.warn("{}: {}", ctx.name, why);
            // Nothing executed past the committed batch stands: the peer never verified it.
            ctx.actions.rollbackTo(ctx.committed);
            buffered.clear();
            handed.clear();
            executed.clear();
            takeOver(target, why);
        } else if (solo == Fence.Solo.REFUSED) {
            // A restarted replica starts in view 0, below what the witness granted before the restart.
            Message.FenceAnswer refusal = ctx.fence.refusal();
            refusedBelow = Math.max(refusedBelow, refusal.view());
            LOG.warn("{}: {}, and the fence refused this one view {} ({})", ctx.name, situation, target, refusal);
        }
    }

    /**
     * Whether this joiner's history is the one both go on from: the longer committed one; on a tie (the same
     * batches, committed histories never fork under the fence) the primary of the later of the two views.
     */
    private boolean holdsLongerHistory(JoinRequest peerJoin) {
        if (ctx.committed != peerJoin.stableSeq()) {
            return ctx.committed > peerJoin.stableSeq();
        }
        return ctx.primaryOf(Math.max(ctx.view, peerJoin.view())) == ctx.self();
    }

    /** Gives back, through the fence, a right to commit alone that an earlier life of this node may hold. */
    private void giveBackEarlierGrant(String why) {
        if (!gaveBackLogged) {
            gaveBackLogged = true;
            LOG.warn(
                    "{}: joining with batches up to {} committed; {}: giving back any right to commit alone an"
                            + " earlier life of this node holds at the fence (what a life without a disk committed"
                            + " alone is gone with it)",
                    ctx.name,
                    ctx.committed,
                    why);
        }
        ctx.fence.giveBack(ctx.view, ctx.clock);
    }

    private void takeOver(long target, String why) {
        long oldView = ctx.view;
        ctx.enterView(target, why);
        PrimaryRole primary = PrimaryRole.afterTakeOver(ctx, oldView, executed, handed);
        executed.clear();
        handed.clear();
        buffered.clear();
        ctx.become(primary);
        primary.startAfterTakeOver();
    }
}
