package io.eve.storage;

import io.eve.config.ClusterConfig.Storage.Sync;
import io.eve.execution.Executed;
import io.eve.execution.ExecutionStage;
import io.eve.merkle.ApplyResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One execution replica's durable storage (docs/operations.md, "Storage"; docs/decisions/0019): the log of
 * committed batches and the chain of checkpoints in the node's directory.
 *
 * <p>Life: {@link #recover} brings a fresh execution stage to what the disk holds, then {@link #start} starts
 * the storage thread, which appends {@link #append}ed batches with group commit and tells {@code onDurable}
 * the last batch it made durable. Every {@code checkpointEvery} committed batches {@link #onStable} takes the
 * stage's changes since the last checkpoint (on the stage thread, where the stage lives) and hands them to
 * the storage thread to write.
 *
 * <p>Threads: {@link #recover} on the thread that owns the stage before anything else runs on it; {@link
 * #append} from any thread; {@link #onStable}, {@link #onRolledBack} and {@link #onTransferred} on the stage
 * thread, in the stage's order; {@link #close} once.
 */
public final class Storage implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Storage.class);

    private final StorageConfig config;
    private final FileSync sync;
    private final String name;
    private final BatchLog log;
    private final Checkpoints checkpoints;
    private final CheckpointPlan plan;
    private Recovered recovered;
    private StorageWriter writer;
    private Thread thread;
    private boolean closed;
    private boolean onDemand;

    /** @param name how logs name the node ("node 1") */
    public Storage(StorageConfig config, String name) {
        this(config, name, FileSync.FORCE);
    }

    Storage(StorageConfig config, String name, FileSync sync) {
        this.config = config;
        this.name = name;
        this.sync = sync;
        this.log = new BatchLog(config.dir(), sync, config.segmentBytes());
        this.checkpoints = new Checkpoints(config.dir(), sync);
        this.plan = new CheckpointPlan(config.checkpointEvery(), config.maxChainLinks());
    }

    public StorageConfig config() {
        return config;
    }

    /** Whether a reply must wait until its batch is durable: only with sync = batch. */
    public boolean holdsReplies() {
        return config.sync() == Sync.BATCH;
    }

    /**
     * Brings {@code stage}, fresh, to the state on disk: applies the checkpoint chain (as a state transfer is
     * applied), then executes the logged batches after it again, checking each token against the logged one.
     * A token that differs stops there: the log is cut at that batch and the replica catches up from its peers.
     *
     * @throws CorruptStorageException if a file is damaged other than by a torn last write
     * @throws StorageException if the directory cannot be read or a checkpoint does not apply
     */
    public Recovered recover(ExecutionStage stage) {
        if (recovered != null) {
            throw new IllegalStateException(name + ": storage already recovered");
        }
        try {
            Files.createDirectories(config.dir());
            checkpoints.load(false);
            long seq = 0;
            long view = 0;
            for (Checkpoints.Entry entry : checkpoints.chain()) {
                Checkpoints.Loaded loaded = checkpoints.read(entry);
                ApplyResult result = stage.apply(loaded.delta(), loaded.token());
                if (!result.applied()) {
                    throw new StorageException(name + ": checkpoint " + Checkpoints.file(config.dir(), entry.seq())
                            + " is intact but does not apply to the application's initial state (" + result.reason()
                            + "): was the application or its initial state changed? Move " + config.dir()
                            + " away to restart from the peers");
                }
                stage.markStable(entry.seq());
                seq = entry.seq();
                view = loaded.view();
            }
            long checkpointSeq = seq;
            long[] lastView = {view};
            long[] replayed = {0};
            seq = log.recover(checkpointSeq, false, (batch, file, offset) -> {
                Executed executed = stage.execute(batch.batch(), batch.sequential());
                if (!executed.token().matches(batch.token())) {
                    LOG.warn(
                            "{}: replaying batch {} from {} (offset {}) gave token {}, the log says {}; stopping"
                                    + " there and catching up from the peers",
                            name,
                            batch.seq(),
                            file,
                            offset,
                            executed.token(),
                            batch.token());
                    stage.rollbackTo(batch.seq() - 1);
                    return false;
                }
                stage.markStable(batch.seq());
                lastView[0] = batch.view();
                replayed[0]++;
                return true;
            });
            plan.recovered(checkpoints.chain());
            recovered = new Recovered(seq, lastView[0], checkpointSeq, replayed[0]);
            if (recovered.any()) {
                LOG.info(
                        "{}: recovered batch {} (view {}) from {}: checkpoint at {}, {} logged batches replayed",
                        name,
                        seq,
                        recovered.view(),
                        config.dir(),
                        checkpointSeq,
                        replayed[0]);
            }
            return recovered;
        } catch (IOException e) {
            throw new StorageException(name + ": cannot read the storage directory " + config.dir() + ": " + e, e);
        }
    }

    /**
     * What a node's directory holds, read without executing anything or changing a file: the last batch and
     * its view, trusting the logged tokens. For a launcher deciding which of several restarting nodes leads.
     */
    public static Recovered inspect(StorageConfig config) {
        if (!Files.isDirectory(config.dir())) {
            return Recovered.NOTHING;
        }
        try {
            Checkpoints checkpoints = new Checkpoints(config.dir(), FileSync.FORCE);
            checkpoints.load(true);
            List<Checkpoints.Entry> chain = checkpoints.chain();
            long checkpointSeq =
                    chain.isEmpty() ? 0 : chain.get(chain.size() - 1).seq();
            long[] view = {
                chain.isEmpty()
                        ? 0
                        : checkpoints.read(chain.get(chain.size() - 1)).view()
            };
            long[] count = {0};
            long seq = new BatchLog(config.dir(), FileSync.FORCE, config.segmentBytes())
                    .recover(checkpointSeq, true, (batch, file, offset) -> {
                        view[0] = batch.view();
                        count[0]++;
                        return true;
                    });
            return new Recovered(seq, view[0], checkpointSeq, count[0]);
        } catch (IOException e) {
            throw new StorageException("cannot read the storage directory " + config.dir() + ": " + e, e);
        }
    }

    /**
     * Before {@link #start}: force the log at once for the batches {@linkplain #want wanted} (a reply, or the
     * executed tail, waits for them), whatever the sync mode; with sync = batch, force the other batches every
     * sync interval instead of each group, as with sync = interval. For a replica whose log is not what makes an
     * acknowledged batch durable while it releases no replies (a primary-backup backup: docs/primary-backup.md,
     * "Whole-cluster restart"; a quorum replica, whose executed tail does: docs/quorum.md), so that it does not
     * force for nobody (decision 0041).
     */
    public void forceOnDemand() {
        if (writer != null) {
            throw new IllegalStateException(name + ": choose when to force before starting storage");
        }
        onDemand = true;
    }

    /**
     * Any thread: something waits until batch {@code seq} is on disk. With {@link #forceOnDemand}, the log is
     * forced as soon as it holds that batch; otherwise nothing changes.
     */
    public void want(long seq) {
        if (writer != null) {
            writer.want(seq);
        }
    }

    /** The last batch a force of the log covered, whatever the sync mode (see {@link #forceOnDemand}). */
    public long forcedSeq() {
        return writer == null ? 0 : writer.forced();
    }

    /**
     * Starts the storage thread.
     *
     * @param onDurable told, on the storage thread, each time more batches are durable (with sync = interval or
     *     none: handed to the operating system), with the last of them
     * @param onFailure told, on the storage thread, when a write fails; the storage thread stops
     */
    public void start(LongConsumer onDurable, Consumer<Throwable> onFailure) {
        if (recovered == null) {
            throw new IllegalStateException(name + ": recover the stage before starting storage");
        }
        writer = new StorageWriter(name, log, checkpoints, config, recovered.seq(), onDemand, onDurable, onFailure);
        thread = new Thread(writer, "eve-storage-" + name.replace(' ', '-'));
        thread.setDaemon(true);
        thread.start();
    }

    /** Queues a committed batch for the log. Batches come in order, each once. */
    public void append(LoggedBatch batch) {
        writer.enqueue(new StorageWriter.Append(batch));
    }

    /** The last durable batch (see {@code onDurable} in {@link #start}). */
    public long durableSeq() {
        return writer == null ? 0 : writer.durable();
    }

    /** Forces of the log since start. */
    public long forces() {
        return writer == null ? 0 : writer.forces();
    }

    /** On the stage thread: batch {@code seq} committed in {@code view}; takes a checkpoint when one is due. */
    public void onStable(ExecutionStage stage, long seq, long view) {
        plan.onStable(stage, seq, view).ifPresent(writer::enqueue);
    }

    /** On the stage thread: the stage rolled back to {@code seq}; a checkpoint taken after it is dropped. */
    public void onRolledBack(long seq) {
        plan.onRolledBack(seq).ifPresent(writer::enqueue);
    }

    /**
     * On the stage thread: the stage installed a state transfer; the batches it skipped will never be logged,
     * so a checkpoint at the transferred batch is taken now.
     */
    public void onTransferred(ExecutionStage stage, long view) {
        plan.onTransferred(stage, view).forEach(writer::enqueue);
    }

    /**
     * Writes what is queued, forces it, and stops the storage thread; waits for it unless called on it (a
     * failure). Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (thread == null) {
            try {
                log.close();
            } catch (IOException e) {
                LOG.warn("{}: closing the log failed", name, e);
            }
            return;
        }
        writer.stop();
        if (Thread.currentThread() == thread) {
            return;
        }
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The node's directory. */
    public Path dir() {
        return config.dir();
    }
}
