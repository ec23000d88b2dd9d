package io.eve.storage;

import io.eve.config.ClusterConfig.Storage.Sync;
import io.eve.execution.Token;
import io.eve.merkle.StateDelta;
import java.io.IOException;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The storage thread: takes what is queued, appends every batch of the group, forces the log once for all
 * of them (sync = batch; on a timer for interval; never for none) and publishes the durable batch. With
 * {@linkplain #StorageWriter on demand}, a group holding a {@linkplain #want wanted} batch is forced at once
 * whatever the sync mode, and with sync = batch the other groups are forced on the interval's timer. Writes
 * checkpoint files, and installs each in the manifest once its batch is known committed; then deletes the log
 * segments it covers.
 *
 * <p>Waking: on demand with sync = batch nothing but a wanted batch needs the thread before the interval's
 * timer, so an append wakes it only when it completes what is wanted (or finds it idle); other appends wait
 * for the next wake, other commands wake it. A replica that releases no replies then wakes its writer about twice per
 * interval instead of once per batch, and one whose replies wait wakes it once per force instead of once for
 * the append and once for the want (docs/benchmarks.md, "Waking the storage thread"). Every other mode wakes
 * it for every command, as a queue would.
 *
 * <p>Owns the {@link BatchLog} and {@link Checkpoints} while it runs; other threads only enqueue.
 */
final class StorageWriter implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(StorageWriter.class);

    /** What the writer does, in the order it was asked. */
    sealed interface Command {}

    record Append(LoggedBatch batch) implements Command {}

    /**
     * A checkpoint at {@code token.seq()}; {@code committed}: install at once, else once that batch is appended
     * (it was taken while later batches than the committed one were executed, and a rollback may discard it).
     */
    record Checkpoint(long view, boolean full, Token token, StateDelta delta, boolean committed) implements Command {}

    /** The pending checkpoint at {@code seq} was rolled back. */
    record Discard(long seq) implements Command {}

    private record Stop() implements Command {}

    /** The most commands one group applies before it publishes (and forces, if due or wanted). */
    private static final int MAX_GROUP = 4096;

    private final Queue<Command> queue = new ConcurrentLinkedQueue<>();
    private final BatchLog log;
    private final Checkpoints checkpoints;
    private final Sync sync;
    private final long intervalNanos;
    private final boolean onDemand;
    /** Commands wake the thread only when they must (on demand with sync = batch); see the class comment. */
    private final boolean lazy;

    private final LongConsumer onDurable;
    private final Consumer<Throwable> onFailure;
    private final String name;
    private Checkpoints.Entry pending;
    private long appended;
    private long installed;
    private volatile long durable;
    private volatile long forces;
    private volatile long wanted;
    private volatile long forcedThrough;
    private long lastForce = System.nanoTime();
    private volatile Thread runner;
    /** The thread waits with no deadline: any command wakes it. */
    private volatile boolean idle;
    /** The last batch queued for the log (by one thread at a time: the stage's mailbox). */
    private volatile long enqueued;

    StorageWriter(
            String name,
            BatchLog log,
            Checkpoints checkpoints,
            StorageConfig config,
            long recovered,
            boolean onDemand,
            LongConsumer onDurable,
            Consumer<Throwable> onFailure) {
        this.name = name;
        this.onDemand = onDemand;
        this.lazy = onDemand && config.sync() == Sync.BATCH;
        this.log = log;
        this.checkpoints = checkpoints;
        this.sync = config.sync();
        this.intervalNanos = config.syncInterval().toNanos();
        this.onDurable = onDurable;
        this.onFailure = onFailure;
        this.appended = recovered;
        this.installed = recovered;
        this.durable = recovered;
        this.forcedThrough = recovered;
        this.enqueued = recovered;
    }

    void enqueue(Command command) {
        queue.add(command);
        boolean wantedNow = false;
        if (command instanceof Append append) {
            enqueued = append.batch().seq();
            wantedNow = enqueued <= wanted;
        }
        // Queued (and counted) before reading whether the thread is idle or the batch wanted, which the thread
        // and want() publish before they look at the queue: one side or the other sees the other's write.
        // Checkpoints and discards (one per checkpoint-every batches, and after a transfer, whose batch a
        // reply may want with no append to wake the thread) always wake it.
        if (!lazy || !(command instanceof Append) || wantedNow || idle) {
            LockSupport.unpark(runner);
        }
    }

    void stop() {
        queue.add(new Stop());
        LockSupport.unpark(runner);
    }

    /** Any thread: something waits until batch {@code seq} is durable (on demand: forced as soon as appended). */
    void want(long seq) {
        if (onDemand && seq > wanted) {
            wanted = seq;
            // A batch not queued yet wakes the thread when it is (enqueue): one wake-up for both, not two.
            if (!lazy || seq <= enqueued) {
                LockSupport.unpark(runner);
            }
        }
    }

    long durable() {
        return durable;
    }

    /** The last batch a force of the log covered, whatever the sync mode (with none: only wanted ones). */
    long forced() {
        return forcedThrough;
    }

    /** Forces of the log since start: one per group with sync = batch. */
    long forces() {
        return forces;
    }

    @Override
    public void run() {
        runner = Thread.currentThread();
        try {
            boolean stopping = false;
            while (true) {
                int applied = 0;
                for (Command command; applied < MAX_GROUP && (command = queue.poll()) != null; applied++) {
                    stopping |= command instanceof Stop;
                    apply(command);
                }
                publish(stopping);
                if (stopping) {
                    break;
                }
                if (applied < MAX_GROUP) {
                    await(applied > 0);
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException e) {
            LOG.error("{}: storage failed; the replica stops", name, e);
            onFailure.accept(e);
        } finally {
            try {
                log.close();
            } catch (IOException e) {
                LOG.warn("{}: closing the log failed", name, e);
            }
        }
    }

    /**
     * Waits for the next command that wakes the thread, or until the interval's force is due; returns early
     * on a spurious wake-up (the loop only drains and publishes again).
     *
     * @param applied whether the last round applied a command: lazily, more may be queued unseen
     */
    private void await(boolean applied) {
        boolean timed = lazy ? applied || log.unforced() : sync == Sync.INTERVAL && log.unforced();
        if (timed) {
            long left = lastForce + intervalNanos - System.nanoTime();
            if (left > 0) {
                LockSupport.parkNanos(this, left);
            }
            return;
        }
        idle = true;
        if (queue.isEmpty()) {
            LockSupport.park(this);
        }
        idle = false;
    }

    private void apply(Command command) throws IOException {
        if (command instanceof Append append) {
            log.append(append.batch());
            appended = append.batch().seq();
            if (pending != null && appended >= pending.seq()) {
                install(pending);
                pending = null;
            }
        } else if (command instanceof Checkpoint checkpoint) {
            Checkpoints.Entry entry =
                    checkpoints.write(checkpoint.view(), checkpoint.full(), checkpoint.token(), checkpoint.delta());
            if (checkpoint.committed() || appended >= entry.seq()) {
                install(entry);
            } else {
                pending = entry;
            }
        } else if (command instanceof Discard discard) {
            if (pending != null && pending.seq() == discard.seq()) {
                checkpoints.discard(discard.seq());
                pending = null;
            }
        }
    }

    private void install(Checkpoints.Entry entry) throws IOException {
        // What the log holds up to the checkpoint must be forced before its segments may go.
        log.roll(sync != Sync.NONE);
        if (sync != Sync.NONE) {
            forcedThrough = appended;
        }
        checkpoints.install(entry);
        installed = Math.max(installed, entry.seq());
        log.deleteThrough(entry.seq());
        LOG.debug(
                "{}: checkpoint at batch {} installed ({} bytes, {})",
                name,
                entry.seq(),
                entry.size(),
                entry.full() ? "full" : "incremental");
    }

    private void publish(boolean stopping) throws IOException {
        boolean due = stopping || System.nanoTime() - lastForce >= intervalNanos;
        boolean force = (onDemand && Math.min(wanted, appended) > forcedThrough)
                || switch (sync) {
                    case BATCH -> !onDemand || due;
                    case INTERVAL -> due;
                    case NONE -> false;
                };
        if (force && log.unforced()) {
            log.force();
            forces++;
            forcedThrough = appended;
            lastForce = System.nanoTime();
        }
        long now = Math.max(appended, installed);
        if (now > durable && (sync != Sync.BATCH || !log.unforced())) {
            durable = now;
            onDurable.accept(now);
        }
    }
}
