package io.eve.verify.sim;

import io.eve.Reply;
import io.eve.batch.Batch;
import io.eve.execution.Executed;
import io.eve.execution.ExecutionStage;
import io.eve.execution.Token;
import io.eve.merkle.ApplyResult;
import io.eve.merkle.StateDelta;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.protocol.Message;
import io.eve.verify.primarybackup.Actions;
import io.eve.verify.primarybackup.PrimaryBackup;
import io.eve.verify.primarybackup.PrimaryBackupConfig;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * One incarnation of a replica: a real {@link PrimaryBackup} machine and a real {@link ExecutionStage}
 * whose operations take simulated time and run strictly one after another in the order the machine asked
 * for them, as on the runtime's stage thread ({@code ReplicaRuntime.Bindings}). A crash ends the
 * incarnation; a restart builds a new one with fresh state, or from the {@link Disk} the crashed one left.
 */
final class SimReplica {
    private static final long TICK_NANOS = 5_000_000L;
    private static final long SYNC_INTERVAL_NANOS = 30_000_000L;

    final int node;
    final int incarnation;
    final SimCounter app = new SimCounter();
    final ExecutionStage stage;
    final PrimaryBackup machine;
    final long startedAt;
    final boolean joining;
    private final Simulation sim;
    private final Deque<StageOperation> operations = new ArrayDeque<>();
    private boolean stageBusy;
    private boolean alive = true;
    /** While paused (SIGSTOP), everything that would happen here waits, in order, for the resume. */
    private boolean paused;

    private final Deque<Runnable> deferred = new ArrayDeque<>();
    private boolean caughtUp;
    /**
     * What a disk with {@code storage.sync=interval} holds after a power failure: the state of the committed
     * batch of its last force (taken at most once per {@link #SYNC_INTERVAL_NANOS}, at a batch with nothing
     * executed beyond it); empty until the first.
     */
    private Optional<Disk> synced;

    private long syncedAt;
    private long clockJump;
    private long wallStep;

    /** The highest batch the machine declared committed (its {@code markStable} calls). */
    private long protocolStable;

    /** This incarnation's latest execution of each version its stage still holds. */
    private final NavigableMap<Long, Executed> executions = new TreeMap<>();

    private record StageOperation(String what, long nanos, Runnable work) {}

    /**
     * What a replica's disk holds after a crash: the state of a committed batch as a full delta and the token it
     * leads to. With {@code everyAcknowledged} (storage.sync=batch) it is the last batch the replica committed,
     * logged before it released any reply of it; without (a sync on an interval), an earlier one.
     */
    record Disk(long seq, StateDelta state, Token token, boolean everyAcknowledged) {
        /** The same state, as the disk of a sync on an interval holds it. */
        Disk synced() {
            return new Disk(seq, state, token, false);
        }
    }

    SimReplica(
            Simulation sim,
            int node,
            int incarnation,
            boolean joining,
            PrimaryBackupConfig config,
            LongSupplier seeds,
            Optional<Disk> disk) {
        this.sim = sim;
        this.node = node;
        this.incarnation = incarnation;
        this.joining = joining;
        this.caughtUp = !joining || disk.isPresent();
        this.startedAt = sim.now();
        this.stage = new ExecutionStage(app, KeyConflictMixer.unbounded(), new InlineExecutor());
        long recovered = disk.map(this::recover).orElse(0L);
        this.synced = disk.map(Disk::synced);
        this.syncedAt = startedAt;
        this.protocolStable = recovered;
        this.machine = new PrimaryBackup(config, new Bindings(), joining, recovered, seeds);
        if (disk.map(Disk::everyAcknowledged).orElse(false)) {
            machine.recoveredEveryAcknowledgedBatch();
        }
    }

    /** Loads the state a disk holds into the fresh stage: the version it committed last, stable. */
    private long recover(Disk disk) {
        ApplyResult result = stage.apply(disk.state(), disk.token());
        if (!result.applied()) {
            throw new IllegalStateException(name() + ": the disk's state does not load: " + result.reason());
        }
        stage.markStable(disk.seq());
        return disk.seq();
    }

    /**
     * What this incarnation's disk holds when it crashes: the state at the last batch its protocol declared
     * committed (every version from the stage's stable one to it is a committed one; the stage holds it).
     */
    Optional<Disk> disk() {
        long seq = Math.max(stage.stableSeq(), Math.min(protocolStable, stage.executedSeq()));
        if (seq == 0) {
            return Optional.empty();
        }
        stage.rollbackTo(seq);
        Token token = stage.lastToken();
        if (token == null || token.seq() != seq) {
            throw new IllegalStateException(name() + ": no token for the version " + seq + " on its disk: " + token);
        }
        return Optional.of(new Disk(seq, stage.deltaSince(0), token, true));
    }

    /**
     * What this incarnation's disk holds after a power failure with {@code storage.sync=interval}: the state
     * of the last force, without the unsynced suffix since (empty if nothing was forced yet).
     */
    Optional<Disk> syncedDisk() {
        return synced;
    }

    String name() {
        return "node " + node + "#" + incarnation;
    }

    /** This replica's monotonic clock: the simulation's, plus any forward jumps injected. */
    private long clock() {
        return sim.now() + clockJump;
    }

    /** This replica's wall clock: the simulation's, shifted by any steps injected (either way). */
    private long wall() {
        return sim.wallMillis() + wallStep;
    }

    /**
     * The monotonic clock jumps ahead, as when a VM is suspended and resumed or a timer misfires: every
     * timeout measured across the jump looks that much longer.
     */
    void jumpClock(long nanos) {
        clockJump += nanos;
    }

    /** The wall clock is stepped (NTP, an operator), forward or back. */
    void stepWallClock(long millis) {
        wallStep += millis;
    }

    void start() {
        machine.start(clock());
        scheduleTick();
    }

    private void scheduleTick() {
        sim.queue().after(TICK_NANOS, name() + " tick", () -> {
            if (alive && !paused) {
                machine.onTick(clock(), wall());
            }
            if (alive) {
                scheduleTick();
            }
        });
    }

    /**
     * The process stops (SIGSTOP, a long GC, a VM migration): it receives nothing and does nothing; messages
     * to it and its stage's outcomes queue up.
     */
    void pause() {
        paused = true;
    }

    /**
     * The process runs again with what queued up while it was stopped; {@code timerFirst}: its timer fires
     * before it reads the queued messages (it then sees a long silence first).
     */
    void resume(boolean timerFirst) {
        paused = false;
        if (timerFirst && alive) {
            machine.onTick(clock(), wall());
        }
        while (alive && !paused && !deferred.isEmpty()) {
            deferred.poll().run();
        }
    }

    boolean paused() {
        return paused;
    }

    /** Runs {@code work} now, or at the resume if this process is paused. */
    private void whenRunning(Runnable work) {
        if (paused) {
            deferred.add(work);
        } else {
            work.run();
        }
    }

    void crash() {
        alive = false;
        paused = false;
        deferred.clear();
        operations.clear();
    }

    boolean alive() {
        return alive;
    }

    /** Whether this incarnation holds the service's state: it started with it, or installed a transfer. */
    boolean caughtUp() {
        return caughtUp;
    }

    boolean stageIdle() {
        return !stageBusy && operations.isEmpty();
    }

    long protocolStable() {
        return protocolStable;
    }

    void onMessage(int from, Message message) {
        if (alive) {
            whenRunning(() -> machine.onMessage(from, message, clock(), wall()));
        }
    }

    /** The execution, still held by the stage, whose replies include {@code reply}'s request, at or below {@code seq}. */
    Executed executionAnswering(Reply reply, long atMost) {
        for (Executed executed :
                executions.headMap(atMost, true).descendingMap().values()) {
            for (Reply candidate : executed.replies()) {
                if (candidate.clientId() == reply.clientId() && candidate.requestSeq() == reply.requestSeq()) {
                    return executed;
                }
            }
        }
        return null;
    }

    private void enqueue(String what, long nanos, Runnable work) {
        operations.add(new StageOperation(what, nanos, work));
        if (!stageBusy) {
            runNext();
        }
    }

    private void runNext() {
        StageOperation next = operations.poll();
        if (next == null) {
            stageBusy = false;
            return;
        }
        stageBusy = true;
        sim.queue().after(next.nanos(), name() + " stage " + next.what(), () -> {
            if (!alive) {
                return;
            }
            whenRunning(() -> {
                try {
                    next.work().run();
                } catch (RuntimeException e) {
                    sim.fail(name() + ": the execution stage failed on " + next.what() + ": " + e, e);
                    return;
                }
                runNext();
            });
        });
    }

    /** Hands an outcome back to the machine, as the stage thread posts to the protocol thread. */
    private void notifyMachine(String what, Runnable notification) {
        sim.queue().after(sim.protocolHopNanos(), name() + " " + what, () -> {
            if (alive) {
                whenRunning(notification);
            }
        });
    }

    private void onStageExecute(long view, long epoch, Batch batch, boolean sequential) {
        long corruptionsBefore = app.corruptionsDone;
        Executed executed = stage.execute(batch, sequential);
        executions.tailMap(batch.seq(), true).clear();
        executions.put(batch.seq(), executed);
        if (app.corruptionsDone != corruptionsBefore) {
            sim.onCorrupted(this, batch.seq());
        }
        sim.log(name() + " executed batch " + batch.seq() + (sequential ? " sequentially" : "") + " in view " + view
                + " epoch " + epoch + ": " + executed.token());
        notifyMachine("onExecuted " + batch.seq(), () -> machine.onExecuted(view, epoch, executed, wall()));
    }

    private void onStageMarkStable(long seq) {
        // The same guard as the runtime's binding: a stale verdict about a version not held is skipped.
        if (seq <= stage.stableSeq() || seq > stage.executedSeq()) {
            sim.log(name() + " stage skips markStable(" + seq + "): stable " + stage.stableSeq() + ", executed "
                    + stage.executedSeq());
            return;
        }
        for (long s = stage.stableSeq() + 1; s <= seq; s++) {
            // Versions a state transfer skipped are held neither as tokens nor as states: nothing to compare.
            if (stage.tokenAt(s) != null) {
                sim.invariants()
                        .onStable(this, s, stage.tokenAt(s), stage.state().rootAt(s));
            }
        }
        stage.markStable(seq);
        Token token = stage.lastToken();
        if (sim.keepsSyncedDisks()
                && sim.now() - syncedAt >= SYNC_INTERVAL_NANOS
                && token != null
                && token.seq() == seq) {
            synced = Optional.of(new Disk(seq, stage.deltaSince(0), token, false));
            syncedAt = sim.now();
        }
    }

    private void onStageRollback(long seq) {
        stage.rollbackTo(seq);
        executions.tailMap(seq, false).clear();
    }

    private void onStageApply(Message.StateTransfer transfer) {
        ApplyResult result = stage.apply(transfer.delta(), transfer.token());
        if (result.applied()) {
            executions.tailMap(transfer.delta().baseSeq(), false).clear();
            caughtUp = true;
        }
        sim.log(name() + " applied transfer " + transfer.delta().baseSeq() + " -> "
                + transfer.token().seq() + ": " + (result.applied() ? "ok" : result.reason()));
        notifyMachine(
                "onApplied " + transfer.token().seq(),
                () -> machine.onApplied(transfer, result.applied(), result.reason()));
    }

    /** The machine's actions, bound to the simulated stage and network. */
    private final class Bindings implements Actions {
        @Override
        public void send(int to, Message message) {
            sim.network().send(node, to, message);
        }

        @Override
        public void execute(long view, long epoch, Batch batch, boolean sequential) {
            enqueue(
                    "execute " + batch.seq(),
                    sim.executeNanos(batch),
                    () -> onStageExecute(view, epoch, batch, sequential));
        }

        @Override
        public void rollbackTo(long seq) {
            sim.log(name() + " protocol: rollbackTo " + seq);
            enqueue("rollbackTo " + seq, 50_000L, () -> onStageRollback(seq));
        }

        @Override
        public void markStable(long seq) {
            protocolStable = Math.max(protocolStable, seq);
            sim.log(name() + " protocol: markStable " + seq);
            enqueue("markStable " + seq, 10_000L, () -> onStageMarkStable(seq));
        }

        @Override
        public void transfer(int to, long sinceSeq, long view, long epoch) {
            enqueue("transfer since " + sinceSeq, 300_000L, () -> {
                StateDelta delta = stage.deltaSince(sinceSeq);
                sim.network().send(node, to, new Message.StateTransfer(view, epoch, stage.lastToken(), delta));
            });
        }

        @Override
        public void apply(Message.StateTransfer transfer) {
            enqueue("apply " + transfer.token().seq(), 300_000L, () -> onStageApply(transfer));
        }

        @Override
        public void release(Reply reply) {
            sim.invariants().onRelease(SimReplica.this, reply);
            sim.network().send(node, (int) reply.clientId(), new Message.ClientReply(reply));
        }
    }
}
