package io.eve.verify.primarybackup;

import io.eve.Application;
import io.eve.Reply;
import io.eve.batch.Batch;
import io.eve.execution.Executed;
import io.eve.execution.ExecutionStage;
import io.eve.merkle.ApplyResult;
import io.eve.merkle.StateDelta;
import io.eve.mixer.Mixer;
import io.eve.protocol.Message;
import io.eve.runtime.Mailbox;
import io.eve.transport.Transport;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.security.SecureRandom;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One primary-backup replica running for real: the {@link PrimaryBackup} state machine, the {@link
 * ExecutionStage} with its executor pool, a {@link Transport}, and the wall clock. The shell around the
 * state machine (DESIGN.md section 9).
 *
 * <p>The state machine and the stage each run in a {@link Mailbox}: one event at a time, in order, on
 * the thread that delivered the event when the mailbox is idle (the transport's event loop, usually),
 * otherwise on the mailbox's own thread. A batch of at most {@code inlineBatchLimit} requests runs on
 * the delivering thread too, so at low load a request crosses no thread on its way through a replica, as
 * long as requests are cheap: while recent requests took more than {@value #INLINE_COST_LIMIT_MICROS} us
 * each on average, every batch goes to the stage thread, since a request that blocks would hold the
 * transport's event loop, and every connection on it, for that long. Larger batches always go to the
 * stage thread, so that the protocol keeps working while they run.
 *
 * <p>{@link #start()} and {@link #close()} from any thread. A failure in the state machine or the stage
 * stops the replica and is reported to the error handler.
 */
public final class PrimaryBackupReplica implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PrimaryBackupReplica.class);

    /** How long a query from another thread waits for the replica's mailbox to answer. */
    private static final java.time.Duration ANSWER_TIMEOUT = java.time.Duration.ofSeconds(5);

    private static final long TICK_MILLIS = 5;
    private static final int DRAIN_LIMIT = 256;

    private final PrimaryBackupConfig config;
    private final Transport transport;
    private final ExecutionStage stage;
    private final ExecutorService executors;
    private final ScheduledExecutorService protocolThread;
    private final ExecutorService stageThread;
    private final Mailbox protocol;
    private final Mailbox stageBox;
    private final int inlineBatchLimit;

    /** Above this mean execution time per request, no batch runs on the delivering thread. */
    static final long INLINE_COST_LIMIT_MICROS = 50;
    /** Read-only requests that may wait for a commit at once; more are told to reissue. */
    static final int MAX_PENDING_READS = 10_000;

    /**
     * Mean execution time per request of recent batches (exponentially weighted, 1/8 per batch), written by
     * whichever thread ran the stage; it decides where the next batch runs, never what it computes.
     */
    private volatile long meanNanosPerRequest;

    private final PrimaryBackup machine;
    private final Consumer<Throwable> onFailure;
    private final LongSupplier nanoClock;
    private final ReplicaMetrics metrics;
    private volatile boolean failed;
    private volatile boolean closing;

    private PrimaryBackupReplica(Builder builder) {
        this.config = Objects.requireNonNull(builder.config, "config");
        this.transport = Objects.requireNonNull(builder.transport, "transport");
        this.onFailure = builder.onFailure;
        this.nanoClock = builder.nanoClock;
        this.metrics = new ReplicaMetrics(builder.registry, config.self());
        this.executors = Executors.newFixedThreadPool(
                builder.executorThreads, Mailbox.daemonThreads("eve-exec-" + config.self()));
        this.stage = new ExecutionStage(
                Objects.requireNonNull(builder.application, "application"),
                Objects.requireNonNull(builder.mixer, "mixer"),
                executors);
        this.protocolThread =
                Executors.newSingleThreadScheduledExecutor(Mailbox.daemonThreads("eve-protocol-" + config.self()));
        this.stageThread = Executors.newSingleThreadExecutor(Mailbox.daemonThreads("eve-stage-" + config.self()));
        this.protocol = new Mailbox(protocolThread, DRAIN_LIMIT, this::fail);
        this.stageBox = new Mailbox(stageThread, DRAIN_LIMIT, this::fail);
        this.inlineBatchLimit = builder.inlineBatchLimit;
        SecureRandom seeds = new SecureRandom();
        this.machine = new PrimaryBackup(config, new Bindings(), builder.joining, seeds::nextLong);
        if (builder.overlapBatches) {
            stage.overlap(builder.executorThreads, seq -> {
                if (!failed && !closing) {
                    protocol.post(() -> machine.onStageDraining(seq, now()));
                }
            });
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Assembles a replica; everything but the optional settings is required. Not thread-safe. */
    public static final class Builder {
        private PrimaryBackupConfig config;
        private Transport transport;
        private Application application;
        private Mixer mixer;
        private int executorThreads = Runtime.getRuntime().availableProcessors();
        private int inlineBatchLimit = 1;
        private boolean overlapBatches = true;
        private boolean joining;
        private Consumer<Throwable> onFailure = failure -> {};
        private LongSupplier nanoClock = System::nanoTime;
        private MeterRegistry registry = new SimpleMeterRegistry();

        private Builder() {}

        public Builder config(PrimaryBackupConfig config) {
            this.config = config;
            return this;
        }

        public Builder transport(Transport transport) {
            this.transport = transport;
            return this;
        }

        public Builder application(Application application) {
            this.application = application;
            return this;
        }

        public Builder mixer(Mixer mixer) {
            this.mixer = mixer;
            return this;
        }

        public Builder executorThreads(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("executorThreads must be at least 1, got " + threads);
            }
            this.executorThreads = threads;
            return this;
        }

        /**
         * Whether consecutive batches overlap in the execution stage (default on; docs/state.md,
         * "Overlapping batches"): the next batch's requests that conflict with nothing of the batch in
         * progress start while it ends, and the primary closes a batch when the stage runs its last
         * requests rather than when it is idle. Needs an application state that supports it
         * ({@code ObjectGraphState}); others run as without it. Off gives the simpler schedule: each batch
         * starts when the one before it is sealed.
         */
        public Builder overlapBatches(boolean overlap) {
            this.overlapBatches = overlap;
            return this;
        }

        /**
         * Batches of at most this many requests run on the thread that delivered them (the transport's,
         * usually) when the stage is idle: no thread hand-off, the lowest latency, but that thread does
         * nothing else meanwhile. Larger batches run on the stage thread, and so does every batch while
         * recent requests took more than {@value PrimaryBackupReplica#INLINE_COST_LIMIT_MICROS} us each
         * (a blocking request would hold the event loop). 0 sends every batch there. The default, 1,
         * suits requests that take microseconds; raise it for cheap requests under light load.
         */
        public Builder inlineBatchLimit(int requests) {
            if (requests < 0) {
                throw new IllegalArgumentException("inlineBatchLimit must not be negative, got " + requests);
            }
            this.inlineBatchLimit = requests;
            return this;
        }

        /** The replica restarts and must catch up by state transfer before it serves. */
        public Builder joining(boolean joining) {
            this.joining = joining;
            return this;
        }

        /** Told when the replica stops because of an internal failure. */
        public Builder onFailure(Consumer<Throwable> onFailure) {
            this.onFailure = Objects.requireNonNull(onFailure, "onFailure");
            return this;
        }

        /** The monotonic clock of failure detection and batching (tests pause it to model a stopped process). */
        public Builder nanoClock(LongSupplier nanoClock) {
            this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
            return this;
        }

        /** Where counters and histograms go (docs/operations.md lists them). */
        public Builder meterRegistry(MeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        public PrimaryBackupReplica build() {
            return new PrimaryBackupReplica(this);
        }
    }

    public void start() {
        transport.start((from, message) -> {
            if (message instanceof Message.ReadRequest read) {
                onRead(from, read);
            } else {
                protocol(() -> machine.onMessage(from, message, nanoClock.getAsLong(), now()));
            }
        });
        protocol(() -> machine.start(nanoClock.getAsLong()));
        protocolThread.scheduleAtFixedRate(
                () -> protocol(() -> machine.onTick(nanoClock.getAsLong(), now())),
                TICK_MILLIS,
                TICK_MILLIS,
                TimeUnit.MILLISECONDS);
        LOG.info("node {}: started ({})", config.self(), machine.isPrimary() ? "primary" : "backup");
    }

    /** Whether this replica currently acts as primary (for tests and status). */
    public boolean isPrimary() {
        return call(machine::isPrimary);
    }

    public long committed() {
        return call(machine::committed);
    }

    public long view() {
        return call(machine::view);
    }

    public boolean peerAlive() {
        return call(machine::peerAlive);
    }

    /** The execution stage, for inspection in tests (its state is owned by the stage thread). */
    public ExecutionStage stage() {
        return stage;
    }

    public boolean failed() {
        return failed;
    }

    /** What a replica has committed: the last stable batch and the state root there. */
    public record StateSummary(long stableSeq, io.eve.merkle.Digest stableRoot) {}

    /** The last stable batch and its root, read on the stage thread (safe from any thread). */
    public StateSummary summary() {
        try {
            return stageBox.ask(
                    () -> new StateSummary(stage.stableSeq(), stage.state().rootAt(stage.stableSeq())), ANSWER_TIMEOUT);
        } catch (Exception e) {
            throw new IllegalStateException("node " + config.self() + " did not report its state", e);
        }
    }

    /** The replica's counters and histograms. */
    public ReplicaMetrics metrics() {
        return metrics;
    }

    public long rollbacks() {
        return call(machine::rollbacks);
    }

    public long transfersInstalled() {
        return call(machine::transfersInstalled);
    }

    private <T> T call(Supplier<T> query) {
        try {
            return protocol.ask(query, ANSWER_TIMEOUT);
        } catch (Exception e) {
            throw new IllegalStateException("node " + config.self() + " did not answer", e);
        }
    }

    private static long now() {
        return System.currentTimeMillis();
    }

    /**
     * Eve §6's read-only optimisation: the stage runs the request between batches and answers once the
     * version it read committed; the protocol machine never sees it. The answer goes to the sender, which
     * must be the client the request names.
     */
    private void onRead(int from, Message.ReadRequest read) {
        if (read.request().clientId() != from) {
            LOG.debug("node {}: ignoring a read-only request from {} in the name of {}", config.self(), from, read);
            return;
        }
        Runnable run = () -> stage.read(read.request(), MAX_PENDING_READS, (reply, reissue) -> {
            metrics.read(reissue);
            transport.send(from, new Message.ReadReply(reply, reissue));
        });
        if (meanNanosPerRequest <= INLINE_COST_LIMIT_MICROS * 1_000) {
            onStage(run);
        } else {
            onStageThread(run);
        }
    }

    private void protocol(Runnable task) {
        if (!failed && !closing) {
            protocol.run(task);
        }
    }

    /** Stage work that may run on the calling thread. */
    private void onStage(Runnable task) {
        if (!failed && !closing) {
            stageBox.run(task);
        }
    }

    /** Stage work that may take long: always on the stage thread. */
    private void onStageThread(Runnable task) {
        if (!failed && !closing) {
            stageBox.post(task);
        }
    }

    private void fail(Throwable failure) {
        if (closing || failed) {
            return; // a stop cuts work short; that is not a failure
        }
        failed = true;
        LOG.error("node {}: failed; stopping", config.self(), failure);
        onFailure.accept(failure);
        protocol.close();
        stageBox.close();
        protocolThread.shutdown();
        stageThread.shutdown();
    }

    @Override
    public void close() {
        closing = true;
        protocol.close();
        stageBox.close();
        transport.close();
        protocolThread.shutdownNow();
        stageThread.shutdownNow();
        executors.shutdownNow();
        try {
            stageThread.awaitTermination(5, TimeUnit.SECONDS);
            protocolThread.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The state machine's actions, bound to this replica's threads and transport. */
    private final class Bindings implements Actions {
        @Override
        public void send(int to, Message message) {
            transport.send(to, message);
        }

        @Override
        public void execute(long view, long epoch, Batch batch, boolean sequential) {
            boolean inline =
                    batch.size() <= inlineBatchLimit && meanNanosPerRequest <= INLINE_COST_LIMIT_MICROS * 1_000;
            Runnable run = () -> {
                long start = System.nanoTime();
                Executed executed = stage.execute(batch, sequential);
                long nanos = System.nanoTime() - start;
                metrics.executed(executed, nanos);
                long perRequest = nanos / Math.max(1, batch.size());
                meanNanosPerRequest += (perRequest - meanNanosPerRequest) / 8;
                Runnable report = () -> machine.onExecuted(view, epoch, executed, now());
                // A batch run on the stage thread reports without running the state machine there: the drain
                // that follows (client requests, commits, replies) would keep the next batch waiting behind
                // it (about 1 ms of idle stage per batch at 16 threads and 1 ms requests).
                if (inline) {
                    protocol(report);
                } else if (!failed && !closing) {
                    protocol.post(report);
                }
            };
            if (inline) {
                onStage(run);
            } else {
                // The stage may be ending the batch before: it can start this one's free requests now.
                stage.offer(batch, sequential);
                onStageThread(run);
            }
        }

        @Override
        public void rollbackTo(long seq) {
            metrics.rollback();
            onStage(() -> stage.rollbackTo(seq));
        }

        @Override
        public void markStable(long seq) {
            metrics.committed(seq);
            onStage(() -> {
                if (seq > stage.stableSeq() && seq <= stage.executedSeq()) {
                    stage.markStable(seq);
                }
            });
        }

        @Override
        public void transfer(int to, long sinceSeq, long view, long epoch) {
            onStageThread(() -> {
                StateDelta delta = stage.deltaSince(sinceSeq);
                transport.send(to, new Message.StateTransfer(view, epoch, stage.lastToken(), delta));
            });
        }

        @Override
        public void apply(Message.StateTransfer transfer) {
            onStageThread(() -> {
                ApplyResult result = stage.apply(transfer.delta(), transfer.token());
                metrics.transferInstalled(result.applied(), transfer.delta().size());
                protocol(() -> machine.onApplied(transfer, result.applied(), result.reason()));
            });
        }

        @Override
        public void release(Reply reply) {
            metrics.released(reply);
            transport.send((int) reply.clientId(), new Message.ClientReply(reply));
        }
    }
}
