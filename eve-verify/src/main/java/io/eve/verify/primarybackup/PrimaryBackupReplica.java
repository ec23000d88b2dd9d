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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One primary-backup replica running for real: the {@link PrimaryBackup} state machine on a protocol
 * thread, the {@link ExecutionStage} on a stage thread with its executor pool, a {@link Transport}, and
 * the wall clock. The shell around the state machine (DESIGN.md section 9).
 *
 * <p>{@link #start()} and {@link #close()} from any thread; everything else happens on the replica's own
 * threads. A failure on the stage thread stops the replica and is reported to the error handler.
 */
public final class PrimaryBackupReplica implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PrimaryBackupReplica.class);
    private static final long TICK_MILLIS = 5;

    private final PrimaryBackupConfig config;
    private final Transport transport;
    private final ExecutionStage stage;
    private final ExecutorService executors;
    private final ScheduledExecutorService protocolThread;
    private final ExecutorService stageThread;
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
        this.executors = Executors.newFixedThreadPool(builder.executorThreads, named("eve-exec-" + config.self()));
        this.stage = new ExecutionStage(
                Objects.requireNonNull(builder.application, "application"),
                Objects.requireNonNull(builder.mixer, "mixer"),
                executors);
        this.protocolThread = Executors.newSingleThreadScheduledExecutor(named("eve-protocol-" + config.self()));
        this.stageThread = Executors.newSingleThreadExecutor(named("eve-stage-" + config.self()));
        SecureRandom seeds = new SecureRandom();
        this.machine = new PrimaryBackup(config, new Bindings(), builder.joining, seeds::nextLong);
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

    private static java.util.concurrent.ThreadFactory named(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    public void start() {
        transport.start(
                (from, message) -> protocol(() -> machine.onMessage(from, message, nanoClock.getAsLong(), now())));
        protocol(() -> machine.start(nanoClock.getAsLong()));
        protocolThread.scheduleAtFixedRate(
                () -> guard(() -> machine.onTick(nanoClock.getAsLong(), now())),
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
            return stageThread
                    .submit(() ->
                            new StateSummary(stage.stableSeq(), stage.state().rootAt(stage.stableSeq())))
                    .get(5, TimeUnit.SECONDS);
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

    private <T> T call(java.util.concurrent.Callable<T> query) {
        try {
            return protocolThread.submit(query).get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("node " + config.self() + " did not answer", e);
        }
    }

    private static long now() {
        return System.currentTimeMillis();
    }

    private void protocol(Runnable task) {
        if (!protocolThread.isShutdown()) {
            try {
                protocolThread.execute(() -> guard(task));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // stopping: late events are dropped
            }
        }
    }

    private void onStage(Runnable task) {
        if (!stageThread.isShutdown()) {
            try {
                stageThread.execute(() -> guard(task));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // stopping
            }
        }
    }

    private void guard(Runnable task) {
        if (failed || closing) {
            return;
        }
        try {
            task.run();
        } catch (RuntimeException | Error e) {
            if (closing) {
                return; // a stop cuts work short; that is not a failure
            }
            failed = true;
            LOG.error("node {}: failed; stopping", config.self(), e);
            onFailure.accept(e);
            protocolThread.shutdown();
            stageThread.shutdown();
        }
    }

    @Override
    public void close() {
        closing = true;
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
            onStage(() -> {
                long start = System.nanoTime();
                Executed executed = stage.execute(batch, sequential);
                metrics.executed(executed, System.nanoTime() - start);
                protocol(() -> machine.onExecuted(view, epoch, executed, now()));
            });
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
            onStage(() -> {
                StateDelta delta = stage.deltaSince(sinceSeq);
                transport.send(to, new Message.StateTransfer(view, epoch, stage.lastToken(), delta));
            });
        }

        @Override
        public void apply(Message.StateTransfer transfer) {
            onStage(() -> {
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
