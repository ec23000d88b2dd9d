package io.eve.verify.quorum;

import io.eve.Reply;
import io.eve.batch.Batch;
import io.eve.execution.Executed;
import io.eve.execution.ExecutionStage;
import io.eve.execution.Token;
import io.eve.merkle.ApplyResult;
import io.eve.merkle.Digest;
import io.eve.protocol.Message;
import io.eve.runtime.Mailbox;
import io.eve.transport.Transport;
import io.eve.verify.primarybackup.ReplicaMetrics;
import io.micrometer.core.instrument.Tag;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One process of the quorum profiles (crash, bft) running for real: an {@link ExecutionReplica} with its
 * {@link ExecutionStage}, a {@link Verifier}, or both, over one {@link Transport} and the wall clock
 * (docs/quorum.md). The shell around the state machines, as {@code PrimaryBackupReplica} is for
 * primary-backup (DESIGN.md section 9).
 *
 * <p>Both machines share one protocol {@link Mailbox}, the stage has its own: events run one at a time,
 * on the delivering thread when the mailbox is idle. A message a machine sends to its own process (an
 * execution replica's {@code Verify} to the local verifier, say) is delivered through the mailbox after
 * the current event, never re-entrantly. Batches of at most {@code inlineBatchLimit} requests run on the
 * delivering thread, larger ones on the stage thread.
 *
 * <p>{@link #start()} and {@link #close()} from any thread. A failure in a machine or the stage stops the
 * process and is reported to the error handler.
 */
public final class QuorumProcess implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(QuorumProcess.class);

    /** How long a query from another thread waits for the replica's mailbox to answer. */
    private static final java.time.Duration ANSWER_TIMEOUT = java.time.Duration.ofSeconds(5);

    private static final long TICK_MILLIS = 5;
    private static final int DRAIN_LIMIT = 256;
    /** Read-only requests that may wait for a commit at once; more are told to reissue. */
    private static final int MAX_PENDING_READS = 10_000;

    private final QuorumConfig config;
    private final int self;
    private final Transport transport;
    private final ExecutionStage stage;
    private final ExecutorService executors;
    private final ScheduledExecutorService protocolThread;
    private final ExecutorService stageThread;
    private final Mailbox protocol;
    private final Mailbox stageBox;
    private final int inlineBatchLimit;
    private final ExecutionReplica replica;
    private final Verifier verifier;
    private final Consumer<Throwable> onFailure;
    private final LongSupplier nanoClock;
    private final ReplicaMetrics metrics;
    private final AtomicLong viewGauge = new AtomicLong();
    private final AtomicLong verifiedGauge = new AtomicLong();
    private final AtomicLong viewChangesGauge = new AtomicLong();
    private volatile boolean failed;
    private volatile boolean closing;

    private QuorumProcess(QuorumProcessBuilder builder) {
        this.config = Objects.requireNonNull(builder.config, "config");
        this.self = config.self();
        this.transport = Objects.requireNonNull(builder.transport, "transport");
        if (transport.self() != self) {
            throw new IllegalArgumentException(
                    "the transport is node " + transport.self() + " but the configuration's self is " + self);
        }
        this.onFailure = builder.onFailure;
        this.nanoClock = builder.nanoClock != null ? builder.nanoClock : System::nanoTime;
        this.metrics = new ReplicaMetrics(builder.registry, self);
        List<Tag> tags = List.of(Tag.of("node", Integer.toString(self)));
        builder.registry.gauge("eve.view", tags, viewGauge);
        builder.registry.gauge("eve.verifier.committed.seq", tags, verifiedGauge);
        builder.registry.gauge("eve.view.changes", tags, viewChangesGauge);
        this.protocolThread = Executors.newSingleThreadScheduledExecutor(Mailbox.daemonThreads("eve-protocol-" + self));
        this.stageThread = Executors.newSingleThreadExecutor(Mailbox.daemonThreads("eve-stage-" + self));
        this.protocol = new Mailbox(protocolThread, DRAIN_LIMIT, this::fail);
        this.stageBox = new Mailbox(stageThread, DRAIN_LIMIT, this::fail);
        this.inlineBatchLimit = builder.inlineBatchLimit;
        if (config.hostsExecution()) {
            this.executors =
                    Executors.newFixedThreadPool(builder.executorThreads, Mailbox.daemonThreads("eve-exec-" + self));
            this.stage = new ExecutionStage(
                    Objects.requireNonNull(builder.application, "application"),
                    Objects.requireNonNull(builder.mixer, "mixer"),
                    executors);
            SecureRandom seeds = new SecureRandom();
            this.replica = new ExecutionReplica(config, new Bindings(), builder.joining, seeds::nextLong);
        } else {
            this.executors = null;
            this.stage = null;
            this.replica = null;
        }
        this.verifier =
                config.hostsVerifier() ? new Verifier(config, this::send, builder.evidence, builder.joining) : null;
    }

    /** Assembles a process; see {@link QuorumProcessBuilder} for the options. */
    public static QuorumProcessBuilder builder() {
        return new QuorumProcessBuilder();
    }

    static QuorumProcess create(QuorumProcessBuilder builder) {
        return new QuorumProcess(builder);
    }

    public void start() {
        transport.start((from, message) -> {
            if (message instanceof Message.ReadRequest read) {
                onRead(from, read);
            } else {
                protocol(() -> deliver(from, message));
            }
        });
        protocol(() -> {
            long now = nanoClock.getAsLong();
            if (replica != null) {
                replica.start(now);
            }
            if (verifier != null) {
                verifier.start(now);
            }
        });
        protocolThread.scheduleAtFixedRate(() -> protocol(this::tick), TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
        LOG.info("node {}: started as {} ({})", self, role(), config);
    }

    private void tick() {
        long now = nanoClock.getAsLong();
        if (replica != null) {
            replica.onTick(now, wallMillis());
            viewGauge.set(replica.view());
        }
        if (verifier != null) {
            verifier.onTick(now);
            verifiedGauge.set(verifier.committedSeq());
            viewChangesGauge.set(verifier.viewChangesStarted());
            if (replica == null) {
                viewGauge.set(verifier.view());
            }
        }
    }

    private void deliver(int from, Message message) {
        if (isForVerifier(message)) {
            if (verifier != null) {
                verifier.onMessage(from, message, nanoClock.getAsLong());
            }
        } else if (replica != null) {
            replica.onMessage(from, message, nanoClock.getAsLong(), wallMillis());
        }
    }

    /**
     * Eve §6's read-only optimisation: an execution replica's stage runs the request between batches and
     * answers once the version it read committed; the protocol machines never see it. The answer goes to
     * the sender, which must be the client the request names.
     */
    private void onRead(int from, Message.ReadRequest read) {
        if (stage == null || read.request().clientId() != from) {
            return;
        }
        Runnable run = () -> stage.read(read.request(), MAX_PENDING_READS, (reply, reissue) -> {
            metrics.read(reissue);
            transport.send(from, new Message.ReadReply(reply, reissue));
        });
        if (inlineBatchLimit >= 1) {
            onStage(run);
        } else {
            onStageThread(run);
        }
    }

    /** Whether a message is addressed to the verifier role (the rest go to the execution replica). */
    static boolean isForVerifier(Message message) {
        return message instanceof Message.Verify
                || message instanceof Message.Prepare
                || message instanceof Message.CommitVote
                || message instanceof Message.ViewChange
                || message instanceof Message.NewView
                || message instanceof Message.Suspect
                || message instanceof Message.Authenticated;
    }

    /** Out of either machine: to this process through the mailbox (after the current event), else the wire. */
    private void send(int to, Message message) {
        if (to == self) {
            protocol(() -> deliver(self, message));
        } else {
            transport.send(to, message);
        }
    }

    // ---- status ----------------------------------------------------------------------------------

    public QuorumConfig config() {
        return config;
    }

    public boolean hostsExecution() {
        return replica != null;
    }

    public boolean hostsVerifier() {
        return verifier != null;
    }

    /** Whether this process's execution replica is the execution primary of its view. */
    public boolean isPrimary() {
        return replica != null && call(replica::isPrimary);
    }

    /** The view of the execution replica, or of the verifier in a process without one. */
    public long view() {
        return call(() -> replica != null ? replica.view() : verifier.view());
    }

    /** "execution primary + verifier", "execution replica + verifier", "verifier", ... for status displays. */
    public String role() {
        List<String> roles = new ArrayList<>();
        if (replica != null) {
            roles.add(call(() -> replica.isPrimary()) ? "execution primary" : "execution replica");
        }
        if (verifier != null) {
            roles.add("verifier");
        }
        return String.join(" + ", roles);
    }

    /** The last batch the execution replica committed (-1 without one). */
    public long committed() {
        return replica == null ? -1 : call(replica::committed);
    }

    /** The last batch the verifier committed (-1 without one). */
    public long verified() {
        return verifier == null ? -1 : call(verifier::committedSeq);
    }

    /** Whether the execution replica restarted and has not caught up, or the verifier waits for a view. */
    public boolean joining() {
        return call(() -> (replica != null && replica.joining()) || (verifier != null && verifier.recovering()));
    }

    public long rollbacks() {
        return replica == null ? 0 : call(replica::rollbacks);
    }

    public long transfersInstalled() {
        return replica == null ? 0 : call(replica::transfersInstalled);
    }

    public long viewChangesStarted() {
        return verifier == null ? 0 : call(verifier::viewChangesStarted);
    }

    /** The execution stage, for inspection in tests (owned by the stage thread), or null. */
    public ExecutionStage stage() {
        return stage;
    }

    public boolean failed() {
        return failed;
    }

    /** The replica's counters and histograms. */
    public ReplicaMetrics metrics() {
        return metrics;
    }

    /** What an execution replica has committed: the last stable batch and the state root there. */
    public record StateSummary(long stableSeq, Digest stableRoot) {}

    /** The last stable batch and its root, read on the stage thread; null in a verifier-only process. */
    public StateSummary summary() {
        if (stage == null) {
            return null;
        }
        try {
            return stageBox.ask(
                    () -> new StateSummary(stage.stableSeq(), stage.state().rootAt(stage.stableSeq())), ANSWER_TIMEOUT);
        } catch (Exception e) {
            throw new IllegalStateException("node " + self + " did not report its state", e);
        }
    }

    private <T> T call(Supplier<T> query) {
        try {
            return protocol.ask(query, ANSWER_TIMEOUT);
        } catch (Exception e) {
            throw new IllegalStateException("node " + self + " did not answer", e);
        }
    }

    private static long wallMillis() {
        return System.currentTimeMillis();
    }

    private void protocol(Runnable task) {
        if (!failed && !closing) {
            protocol.run(task);
        }
    }

    private void onStage(Runnable task) {
        if (!failed && !closing) {
            stageBox.run(task);
        }
    }

    private void onStageThread(Runnable task) {
        if (!failed && !closing) {
            stageBox.post(task);
        }
    }

    private void fail(Throwable failure) {
        if (closing || failed) {
            return;
        }
        failed = true;
        LOG.error("node {}: failed; stopping", self, failure);
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
        if (executors != null) {
            executors.shutdownNow();
        }
        try {
            stageThread.awaitTermination(5, TimeUnit.SECONDS);
            protocolThread.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The execution replica's actions, bound to this process's threads and transport. */
    private final class Bindings implements ExecutionActions {
        @Override
        public void send(int to, Message message) {
            QuorumProcess.this.send(to, message);
        }

        @Override
        public void execute(long epoch, Batch batch, boolean sequential) {
            boolean inline = batch.size() <= inlineBatchLimit;
            Runnable run = () -> {
                long start = System.nanoTime();
                Executed executed = stage.execute(batch, sequential);
                metrics.executed(executed, System.nanoTime() - start);
                Runnable report = () -> replica.onExecuted(epoch, executed, wallMillis());
                // As in PrimaryBackupReplica: a batch run on the stage thread does not drain protocol work there,
                // which would keep the next batch waiting behind it.
                if (inline) {
                    protocol(report);
                } else if (!failed && !closing) {
                    protocol.post(report);
                }
            };
            if (inline) {
                onStage(run);
            } else {
                // If the stage is still running the batch before, it plans this one meanwhile.
                stage.offer(batch, sequential);
                onStageThread(run);
            }
        }

        @Override
        public void rollbackTo(long seq) {
            metrics.rollback();
            onStage(() -> {
                if (seq >= stage.stableSeq() && seq <= stage.executedSeq()) {
                    stage.rollbackTo(seq);
                } else {
                    LOG.warn(
                            "node {}: no rollback to {} outside {}..{}",
                            self,
                            seq,
                            stage.stableSeq(),
                            stage.executedSeq());
                }
            });
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
        public void serveTransfer(int to, long baseSeq, Token agreed) {
            onStageThread(() -> {
                Token held = stage.tokenAt(agreed.seq());
                if (held == null || !held.matches(agreed) || baseSeq < -1 || baseSeq > agreed.seq()) {
                    return;
                }
                List<Token> chain = new ArrayList<>();
                for (long s = agreed.seq(); s <= stage.executedSeq(); s++) {
                    Token token = stage.tokenAt(s);
                    if (token == null) {
                        return;
                    }
                    chain.add(token);
                }
                transport.send(to, new Message.ChainTransfer(chain, stage.deltaSince(baseSeq)));
            });
        }

        @Override
        public void apply(Message.ChainTransfer transfer) {
            Token last = transfer.chain().get(transfer.chain().size() - 1);
            onStageThread(() -> {
                ApplyResult result = stage.apply(transfer.delta(), last);
                metrics.transferInstalled(result.applied(), transfer.delta().size());
                protocol(() -> replica.onApplied(transfer, result.applied(), result.reason()));
            });
        }

        @Override
        public void replyFromState(long clientId, long requestSeq) {
            onStage(() -> {
                Reply reply = stage.committedReply(clientId, requestSeq);
                if (reply != null) {
                    transport.send((int) clientId, new Message.ClientReply(reply));
                }
            });
        }

        @Override
        public void release(Reply reply) {
            metrics.released(reply);
            transport.send((int) reply.clientId(), new Message.ClientReply(reply));
        }
    }
}
