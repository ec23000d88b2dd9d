package io.eve.verify.primarybackup;

import io.eve.batch.Batcher;
import io.eve.execution.Executed;
import io.eve.protocol.Message;
import io.eve.protocol.Message.BatchToken;
import io.eve.protocol.Message.ClientRequest;
import io.eve.protocol.Message.Commit;
import io.eve.protocol.Message.ExecuteBatch;
import io.eve.protocol.Message.Heartbeat;
import io.eve.protocol.Message.JoinRequest;
import io.eve.protocol.Message.Rollback;
import io.eve.protocol.Message.StateTransfer;
import io.eve.verify.diagnosis.Divergence;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Eve's synchronous primary-backup verification (Eve §6.2) as a deterministic state machine (DESIGN.md
 * section 9): it takes messages, execution outcomes and clock ticks, with the time as an argument, and
 * answers through {@link Actions}. No threads, sockets or clocks inside.
 *
 * <p>This class only routes: each input goes to the replica's current role, a {@link PrimaryRole} or a
 * {@link BackupRole} (possibly {@link CatchingUp}), one handler per message type; the roles hand over to each
 * other on takeovers, demotions and rejoins. A replica silent for the failure timeout counts as failed, and
 * nothing commits without the backup's matching token unless the {@link Fence} granted the right for the
 * current view (docs/primary-backup.md).
 *
 * <p>Not thread-safe: one protocol thread calls it.
 */
public final class PrimaryBackup {
    private static final Logger LOG = LoggerFactory.getLogger(PrimaryBackup.class);

    /**
     * Until a replica has heard its peer once, it waits this many failure timeouts before it counts the
     * peer as failed: two replicas started together on a loaded machine may take seconds to come up, and
     * each deciding alone that the other is dead is a split brain before the first request.
     */
    static final int STARTUP_GRACE_TIMEOUTS = 3;

    private final PairContext ctx;

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
        this(config, actions, joining, recoveredSeq, 0, seeds);
    }

    /**
     * @param joining whether this replica restarts and must catch up by state transfer before serving
     * @param recoveredSeq the last committed batch this replica recovered from its disk, 0 if none: it starts
     *     committed there, and a joining replica asks for the changes since
     * @param startView the view to start in: the one its recovered batch committed in, or the view a launcher
     *     chose for it to lead a restarted pair (not joining, it is the primary if the view's number says so)
     * @param seeds the source of batch seeds (the nondeterminism data the primary picks)
     */
    public PrimaryBackup(
            PrimaryBackupConfig config,
            Actions actions,
            boolean joining,
            long recoveredSeq,
            long startView,
            LongSupplier seeds) {
        if (startView < 0) {
            throw new IllegalArgumentException("startView " + startView + " is negative");
        }
        if (recoveredSeq < 0) {
            throw new IllegalArgumentException("recoveredSeq " + recoveredSeq + " is negative");
        }
        Batcher batcher = new Batcher(config.maxBatchSize(), config.maxBatchDelayNanos(), 1, seeds);
        batcher.resumeAfter(recoveredSeq);
        // Only a witness fence draws a number: a run without one keeps its batch seeds (simulator replays).
        Fence fence =
                config.witness().isPresent() ? config.newFence(seeds.getAsLong(), actions::send) : new TimingFence();
        this.ctx = new PairContext(config, actions, fence, batcher, recoveredSeq);
        ctx.view = startView;
        if (joining) {
            ctx.become(BackupRole.joining(ctx));
        } else if (config.primaryOf(startView) == config.self()) {
            ctx.become(PrimaryRole.atStart(ctx));
        } else {
            ctx.become(BackupRole.inStep(ctx));
        }
    }

    public void start(long now) {
        ctx.clock = now;
        ctx.lastHeard = now;
        if (joining()) {
            ctx.send(new JoinRequest(ctx.view, ctx.committed));
        }
    }

    /**
     * Before the first input: the batches this replica recovered from its disk include every batch it
     * acknowledged ({@code storage.sync=batch}: a reply leaves only once its batch is forced). A joiner that
     * held the witness's solo grant may then go on from its own history when its in-step peer committed less
     * (docs/primary-backup.md, "A holder that restarts"); with a disk forced on an interval it may not, since
     * the peer may have executed acknowledged batches the disk lost.
     */
    public void recoveredEveryAcknowledgedBatch() {
        ctx.recoveredEveryAcknowledged = true;
    }

    /** Whether this replica restarted (or learned of a later view) and has not caught up yet. */
    public boolean joining() {
        return ctx.role() instanceof BackupRole backup && backup.isJoining();
    }

    public boolean isPrimary() {
        return ctx.role() instanceof PrimaryRole;
    }

    public long view() {
        return ctx.view;
    }

    public long committed() {
        return ctx.committed;
    }

    /** The primary as far as this replica knows. */
    public int primary() {
        return ctx.primaryOf(ctx.view);
    }

    /** Whether the peer counts as alive (a primary: it verifies with it; a backup: it heard it lately). */
    public boolean peerAlive() {
        return ctx.role().peerAlive();
    }

    /** Whether this replica holds the right to commit alone in its view (its peer has not caught up since). */
    public boolean soloHeld() {
        return ctx.fence.holdsSolo(ctx.view);
    }

    /** Rollbacks this replica ordered as primary (tokens differed). */
    public long rollbacks() {
        return ctx.rollbacks;
    }

    /** Why this replica last moved to another view, as its log line said it; "" if it never did since start. */
    public String lastViewChange() {
        return ctx.lastViewChange;
    }

    /**
     * Objects this replica, as primary, named as different in batches whose tokens still differed after
     * sequential re-execution (docs/state.md, "Diagnosing a batch that still differs").
     */
    public long divergedObjects() {
        return ctx.reports.divergedObjects();
    }

    /** The last such diagnosis that compared both replicas' objects. */
    public Optional<Divergence> lastDivergence() {
        return ctx.reports.latest();
    }

    /** What the last such diagnosis said: the objects it named, or why it named none. */
    public Optional<String> lastDiagnosis() {
        return ctx.reports.lastLine();
    }

    /** State transfers this replica installed. */
    public long transfersInstalled() {
        return ctx.transfers;
    }

    // ---- inputs --------------------------------------------------------------------------------

    public void onMessage(int from, Message message, long now, long wallMillis) {
        ctx.clock = now;
        ctx.wall = wallMillis;
        if (ctx.fence.isWitness(from)) {
            ctx.fence.onMessage(message, now);
            ctx.role().onFenceAnswered();
            return;
        }
        if (from == ctx.peer) {
            ctx.lastHeard = now;
            ctx.heardPeer = true;
            ctx.role().onHeard(message);
        }
        Role role = ctx.role();
        if (message instanceof ClientRequest request) {
            role.onClientRequest(from, request);
        } else if (from != ctx.peer) {
            LOG.debug("{}: ignoring {} from {}, which is not the peer", ctx.name, message, from);
        } else if (message instanceof ExecuteBatch batch) {
            role.onExecuteBatch(batch);
        } else if (message instanceof BatchToken token) {
            role.onBatchToken(token);
        } else if (message instanceof Commit commit) {
            role.onCommit(commit);
        } else if (message instanceof Rollback rollback) {
            role.onRollback(rollback);
        } else if (message instanceof StateTransfer transfer) {
            role.onStateTransfer(transfer);
        } else if (message instanceof JoinRequest join) {
            role.onJoinRequest(join);
        } else if (message instanceof Heartbeat heartbeat) {
            role.onHeartbeat(heartbeat);
        } else if (message instanceof Message.ObjectDigests digests) {
            role.onObjectDigests(digests);
        }
    }

    public void onTick(long now, long wallMillis) {
        ctx.clock = now;
        ctx.wall = wallMillis;
        ctx.fence.onTick(ctx.view, now);
        if (now - ctx.lastHeartbeatSent >= ctx.config.heartbeatIntervalNanos()) {
            ctx.lastHeartbeatSent = now;
            ctx.role().sendHeartbeat();
        }
        ctx.role().onTick(now);
    }

    /** The execution stage finished a batch. */
    public void onExecuted(long executedView, long executedEpoch, Executed executed, long wallMillis) {
        ctx.wall = wallMillis;
        ctx.role().onExecuted(executedView, executedEpoch, executed);
    }

    /**
     * The execution stage runs the last requests of batch {@code seq} and overlaps batches: it can take
     * the next batch now, so the primary closes what it holds instead of waiting for the stage to idle.
     * Only a hint for batching.
     */
    public void onStageDraining(long seq, long wallMillis) {
        ctx.wall = wallMillis;
        ctx.role().onStageDraining(seq);
    }

    /** The execution stage applied (or refused) a state transfer. */
    public void onApplied(StateTransfer transfer, boolean applied, String reason) {
        ctx.role().onApplied(transfer, applied, reason);
    }
}
