package io.eve.verify.runtime;

import io.eve.Replica;
import io.eve.ReplicaClosedException;
import io.eve.ReplicaStatus;
import io.eve.Reply;
import io.eve.batch.Batch;
import io.eve.execution.Executed;
import io.eve.execution.ExecutionStage;
import io.eve.execution.Token;
import io.eve.merkle.ApplyResult;
import io.eve.merkle.Digest;
import io.eve.merkle.StateDelta;
import io.eve.protocol.Message;
import io.eve.runtime.Mailbox;
import io.eve.storage.ExecutedTail;
import io.eve.storage.LoggedBatch;
import io.eve.storage.Recovered;
import io.eve.storage.Storage;
import io.eve.transport.Transport;
import io.micrometer.core.instrument.Tag;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node of a replicated service running for real, in every profile: the shell (DESIGN.md section 9)
 * around the protocol roles the profile gives the node ({@link HostedRoles}), with the {@link
 * ExecutionStage} and its executor pool when the node executes, a {@link Transport}, the wall clock,
 * metrics and status.
 *
 * <p>The roles and the stage each run in a {@link Mailbox}: one event at a time, in order, on the thread
 * that delivered the event when the mailbox is idle (the transport's event loop, usually), otherwise on
 * the mailbox's own thread. A batch of at most {@code inlineBatchLimit} requests runs on the delivering
 * thread too, so at low load a request crosses no thread on its way through a replica, as long as requests
 * are cheap: while recent requests took more than {@value #INLINE_COST_LIMIT_MICROS} us each on average,
 * every batch goes to the stage thread, since a request that blocks would hold the transport's event loop,
 * and every connection on it, for that long. Larger batches always go to the stage thread, so that the
 * protocol keeps working while they run. Read-only requests (Eve §6) never reach the roles: the stage
 * answers them between batches.
 *
 * <p>{@link #start()}, {@link #close()} and the queries from any thread. A failure in a role or the stage
 * stops the node and is reported to the error handler; after that, or after {@link #close()}, queries
 * fail at once with {@link ReplicaClosedException}.
 */
public final class ReplicaRuntime implements Replica {
    /**
     * Committed batches the executed tail keeps for the log's sake before it asks for a force of the log: each
     * tail record holds them all, so more make every record larger, fewer make the log force more often.
     */
    private static final int TAIL_COMMITTED_BATCHES = 8;

    private static final Logger LOG = LoggerFactory.getLogger(ReplicaRuntime.class);

    /** How long a query from another thread waits for a mailbox to answer. */
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(5);
    /** How often {@link #awaitRole} looks at the status. */
    private static final long AWAIT_POLL_MILLIS = 10;

    private static final long TICK_MILLIS = 5;
    private static final int DRAIN_LIMIT = 256;

    /** Above this mean execution time per request, no batch runs on the delivering thread. */
    public static final long INLINE_COST_LIMIT_MICROS = 50;
    /** Read-only requests that may wait for a commit at once; more are told to reissue. */
    static final int MAX_PENDING_READS = 10_000;

    private final int self;
    private final Transport transport;
    private final ExecutionStage stage;
    private final ExecutorService executors;
    private final int executorThreads;
    private final ScheduledExecutorService protocolThread;
    private final ExecutorService stageThread;
    private final Mailbox protocol;
    private final Mailbox stageBox;
    private final int inlineBatchLimit;
    private final HostedRoles roles;
    private final Consumer<Throwable> onFailure;
    private final LongSupplier nanoClock;
    private final ReplicaMetrics metrics;
    private final List<AutoCloseable> closeWith;
    private final AtomicLong viewGauge = new AtomicLong();
    private final AtomicLong verifiedGauge = new AtomicLong();
    private final AtomicLong viewChangesGauge = new AtomicLong();
    private final AtomicLong divergedObjectsGauge = new AtomicLong();
    private boolean creatingRoles;

    // Storage (null without it). What the stage executed and did not commit yet, confined to the stage mailbox.
    private final Storage storage;
    private final Recovered recovered;
    private final long resumeView;
    private final Token recoveredToken;
    // The executed tail (null unless the roles persist executed batches): what it holds, on the stage mailbox;
    // which record version holds each batch's last execution and the tasks waiting for one, on the protocol one.
    private final ExecutedTail tail;
    private final NavigableMap<Long, LoggedBatch> tailBatches = new TreeMap<>();
    private long tailVersion;
    private final List<Executed> recoveredExecuted = new ArrayList<>();
    private final Map<Long, Long> tailVersionOf = new TreeMap<>();
    private final NavigableMap<Long, List<Runnable>> afterTail = new TreeMap<>();
    private long durableTail;
    // The view led (docs/quorum.md, "Durable replicas and verifiers"): the value the tail's records carry, on the
    // stage mailbox; the highest asked for and the highest durable, with the batches waiting for it, on the
    // protocol one; and what the disk held at start.
    private long ledView = -1;
    private long ledRequested = -1;
    private long ledDurable = -1;
    private final NavigableMap<Long, List<Runnable>> afterLed = new TreeMap<>();
    private long recoveredLedView = -1;
    private final NavigableMap<Long, Executed> uncommitted = new TreeMap<>();
    private long lastLogged;
    // Replies of executed batches by batch, to hold each until its batch is durable (protocol mailbox, as is held).
    private final HeldReplies held;
    private final NavigableMap<Long, List<Reply>> executedReplies = new TreeMap<>();
    private long lastMarkedStable;

    /**
     * Mean execution time per request of recent batches (exponentially weighted, 1/8 per batch), written by
     * whichever thread ran the stage; it decides where the next batch runs, never what it computes.
     */
    private volatile long meanNanosPerRequest;

    private volatile boolean started;
    private volatile Throwable failure;
    private volatile boolean closing;

    ReplicaRuntime(ReplicaRuntimeBuilder builder) {
        HostedRoles.Factory factory = builder.roles;
        this.self = factory.self();
        this.transport = builder.transport;
        if (transport.self() != self) {
            throw new IllegalArgumentException(
                    "the transport is node " + transport.self() + " but the roles are for node " + self);
        }
        this.onFailure = builder.onFailure;
        this.nanoClock = builder.nanoClock;
        this.closeWith = List.copyOf(builder.closeWith);
        this.metrics = new ReplicaMetrics(builder.registry, self);
        List<Tag> tags = List.of(Tag.of("node", Integer.toString(self)));
        builder.registry.gauge("eve.view", tags, viewGauge);
        builder.registry.gauge("eve.verifier.committed.seq", tags, verifiedGauge);
        builder.registry.gauge("eve.view.changes", tags, viewChangesGauge);
        builder.registry.gauge("eve.diverged.objects", tags, divergedObjectsGauge);
        this.protocolThread = Executors.newSingleThreadScheduledExecutor(Mailbox.daemonThreads("eve-protocol-" + self));
        this.stageThread = Executors.newSingleThreadExecutor(Mailbox.daemonThreads("eve-stage-" + self));
        this.protocol = new Mailbox(protocolThread, DRAIN_LIMIT, this::fail);
        this.stageBox = new Mailbox(stageThread, DRAIN_LIMIT, this::fail);
        this.inlineBatchLimit = builder.inlineBatchLimit;
        this.executorThreads = builder.executorThreads;
        if (factory.hostsExecution()) {
            if (builder.application == null || builder.mixer == null) {
                throw new IllegalArgumentException(
                        "node " + self + " hosts an execution replica: it needs an application and a mixer");
            }
            this.executors = Executors.newFixedThreadPool(executorThreads, Mailbox.daemonThreads("eve-exec-" + self));
            this.stage = new ExecutionStage(builder.application, builder.mixer, executors);
        } else {
            this.executors = null;
            this.stage = null;
        }
        this.storage = stage == null ? null : builder.storage;
        if (storage != null) {
            metrics.storage(storage);
        }
        this.resumeView = builder.resumeView;
        SecureRandom seeds = new SecureRandom();
        creatingRoles = true;
        try {
            // The stage is not running yet: recovery executes on this thread, before the roles exist.
            this.recovered = storage == null ? Recovered.NOTHING : storage.recover(stage);
            this.lastLogged = recovered.seq();
            this.recoveredToken = recovered.any() ? stage.tokenAt(recovered.seq()) : null;
            this.tail = storage != null && factory.persistsExecuted()
                    ? new ExecutedTail(storage.dir(), "node " + self, this::onTailDurable, this::fail)
                    : null;
            this.lastMarkedStable = recovered.seq();
            // With an executed tail, a committed batch is on the disks of the replicas whose Verify made its
            // certificate (each wrote it before its Verify left): its replies need not wait for this log.
            this.held = storage != null && storage.holdsReplies() && tail == null
                    ? new HeldReplies(this::sendReply, storage::want, recovered.seq())
                    : null;
            if (held != null || tail != null) {
                // The log of the replica that releases a reply makes it durable (docs/primary-backup.md,
                // "Whole-cluster restart"); while this one releases none, its forces protect nobody's reply.
                // With an executed tail no reply waits for the log at all: the tail asks for a force when it
                // holds too many committed batches (logCommitted).
                storage.forceOnDemand();
            }
            if (tail != null) {
                recoverTail();
            }
            boolean joining = builder.joining || (recovered.any() && resumeView < 0) || !recoveredExecuted.isEmpty();
            this.roles = factory.create(new Host(), joining, seeds::nextLong);
        } catch (RuntimeException e) {
            // Nothing has started yet, but the pools exist: do not leave their threads behind.
            protocolThread.shutdownNow();
            stageThread.shutdownNow();
            if (executors != null) {
                executors.shutdownNow();
            }
            if (builder.storage != null) {
                builder.storage.close();
            }
            throw e;
        }
        creatingRoles = false;
    }

    /** Assembles a runtime: the roles and the transport always, the rest as the roles need. */
    public static ReplicaRuntimeBuilder builder() {
        return new ReplicaRuntimeBuilder();
    }

    @Override
    public void start() {
        ensureOpen();
        synchronized (this) {
            if (started) {
                throw new IllegalStateException("node " + self + " is already started");
            }
            started = true;
        }
        if (storage != null) {
            storage.start(this::onDurable, this::fail);
        }
        transport.start((from, message) -> {
            if (message instanceof Message.ReadRequest read) {
                onRead(from, read);
            } else {
                protocol(() -> roles.onMessage(from, message, nanoClock.getAsLong(), wallMillis()));
            }
        });
        protocol(() -> roles.start(nanoClock.getAsLong()));
        protocolThread.scheduleAtFixedRate(() -> protocol(this::tick), TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
        LOG.info(
                "node {}: started as {}{}",
                self,
                inspect(r -> r.status().roles()),
                recovered.any() ? " from batch " + recovered.seq() + " recovered from disk" : "");
    }

    private void tick() {
        roles.onTick(nanoClock.getAsLong(), wallMillis());
        RoleStatus status = roles.status();
        viewGauge.set(status.view());
        verifiedGauge.set(status.verifiedSeq());
        viewChangesGauge.set(status.viewChanges());
        divergedObjectsGauge.set(status.divergedObjects());
    }

    @Override
    public int node() {
        return self;
    }

    @Override
    public ReplicaStatus status() {
        RoleStatus role = inspect(HostedRoles::status);
        StateSummary summary = summary();
        return new ReplicaStatus(
                self,
                role.role(),
                role.roles(),
                role.view(),
                role.committedSeq(),
                summary == null ? -1 : summary.stableSeq(),
                summary == null ? null : summary.stableRoot(),
                role.verifiedSeq(),
                metrics.rollbacks(),
                metrics.transfersInstalled(),
                metrics.transferBytes(),
                metrics.repliesReleased(),
                role.viewChanges(),
                role.divergedObjects(),
                role.lastViewChange(),
                role.countsInViewChanges());
    }

    @Override
    public ReplicaStatus awaitRole(Role role, Duration timeout) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            ReplicaStatus status = status();
            if (status.role() == role) {
                return status;
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new TimeoutException("node " + self + " did not become " + role + " within " + timeout
                        + "; it is " + status.role() + " in view " + status.view());
            }
            Thread.sleep(AWAIT_POLL_MILLIS);
        }
    }

    /** Whether the node orders batches now. */
    public boolean isPrimary() {
        return inspect(r -> r.status().role()) == Role.PRIMARY;
    }

    /** The node's current view. */
    public long view() {
        return inspect(r -> r.status().view());
    }

    /** The last batch the execution role committed (-1 without one). */
    public long committed() {
        return inspect(r -> r.status().committedSeq());
    }

    /**
     * Runs {@code query} on the protocol mailbox, where the roles live, and returns its answer: the way to
     * read a role's own state consistently (tests, status displays).
     */
    public <T> T inspect(Function<HostedRoles, T> query) {
        ensureOpen();
        try {
            return protocol.ask(() -> query.apply(roles), ANSWER_TIMEOUT);
        } catch (TimeoutException e) {
            ensureOpen(); // closed or failed while waiting: say so rather than time out
            throw new IllegalStateException("node " + self + " did not answer within " + ANSWER_TIMEOUT, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while asking node " + self, e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("node " + self + " could not answer", e.getCause());
        }
    }

    /** The execution stage, for inspection in tests (its state is owned by the stage thread), or null. */
    public ExecutionStage stage() {
        return stage;
    }

    /** What the node recovered from its disk when it was built ({@link Recovered#NOTHING} without storage). */
    public Recovered recovered() {
        return recovered;
    }

    /** Whether the node stopped after an internal failure. */
    public boolean failed() {
        return failure != null;
    }

    /** The node's counters and histograms. */
    public ReplicaMetrics metrics() {
        return metrics;
    }

    /** What an execution replica has committed: the last stable batch and the state root there. */
    public record StateSummary(long stableSeq, Digest stableRoot) {}

    /** The last stable batch and its root, read on the stage thread; null in a verifier-only process. */
    public StateSummary summary() {
        ensureOpen();
        if (stage == null) {
            return null;
        }
        try {
            return stageBox.ask(
                    () -> new StateSummary(stage.stableSeq(), stage.state().rootAt(stage.stableSeq())), ANSWER_TIMEOUT);
        } catch (Exception e) {
            ensureOpen();
            throw new IllegalStateException("node " + self + " did not report its state", e);
        }
    }

    private void ensureOpen() {
        Throwable cause = failure;
        if (cause != null) {
            throw new ReplicaClosedException("node " + self + " stopped after a failure: " + cause, cause);
        }
        if (closing) {
            throw new ReplicaClosedException("node " + self + " is closed");
        }
    }

    private static long wallMillis() {
        return System.currentTimeMillis();
    }

    /**
     * Eve §6's read-only optimisation: the stage runs the request between batches and answers once the
     * version it read committed; the roles never see it. The answer goes to the sender, which must be the
     * client the request names.
     */
    private void onRead(int from, Message.ReadRequest read) {
        if (stage == null || read.request().clientId() != from) {
            LOG.debug("node {}: ignoring a read-only request from {}: {}", self, from, read);
            return;
        }
        Runnable run = () -> stage.read(read.request(), MAX_PENDING_READS, (reply, reissue) -> {
            metrics.read(reissue);
            transport.send(from, new Message.ReadReply(reply, reissue));
        });
        if (inlineBatchLimit >= 1 && cheapRequests()) {
            runOnStage(run);
        } else {
            postToStage(run);
        }
    }

    private boolean cheapRequests() {
        return meanNanosPerRequest <= INLINE_COST_LIMIT_MICROS * 1_000;
    }

    private boolean running() {
        return failure == null && !closing;
    }

    private void protocol(Runnable task) {
        if (running()) {
            protocol.run(task);
        }
    }

    /** Protocol work that must not run inside the current event. */
    private void protocolLater(Runnable task) {
        if (running()) {
            protocol.post(task);
        }
    }

    /** Stage work that may run on the calling thread. */
    private void runOnStage(Runnable task) {
        if (running()) {
            stageBox.run(task);
        }
    }

    /** Stage work that may take long: always on the stage thread. */
    private void postToStage(Runnable task) {
        if (running()) {
            stageBox.post(task);
        }
    }

    private void fail(Throwable cause) {
        if (!running()) {
            return; // a stop cuts work short; that is not a failure
        }
        failure = cause;
        LOG.error("node {}: failed; stopping", self, cause);
        onFailure.accept(cause);
        protocol.close();
        stageBox.close();
        protocolThread.shutdown();
        stageThread.shutdown();
        if (storage != null) {
            storage.close();
        }
        if (tail != null) {
            tail.close();
        }
    }

    @Override
    public void close() {
        if (closing) {
            return;
        }
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
        if (storage != null) {
            storage.close(); // after the stage: nothing is appended any more; what was is forced
        }
        if (tail != null) {
            tail.close();
        }
        List<AutoCloseable> reversed = new ArrayList<>(closeWith);
        java.util.Collections.reverse(reversed);
        for (AutoCloseable resource : reversed) {
            try {
                resource.close();
            } catch (Exception e) {
                LOG.warn("node {}: closing {} failed", self, resource, e);
            }
        }
    }

    /**
     * On the storage thread: batches up to {@code seq} are durable. Their replies are sent from the protocol
     * mailbox, never here: the storage thread's next force waits for whatever it does after this one.
     */
    private void onDurable(long seq) {
        if (held != null) {
            protocolLater(() -> held.onDurable(seq));
        }
    }

    private void sendReply(Reply reply) {
        transport.send((int) reply.clientId(), new Message.ClientReply(reply));
    }

    /**
     * On the stage mailbox: batch {@code seq} is stable; the batches executed here up to it go to the log, in
     * order, and a checkpoint is taken when one is due.
     */
    private void logCommitted(long seq, long view) {
        NavigableMap<Long, Executed> committed = uncommitted.headMap(seq, true);
        for (Map.Entry<Long, Executed> entry : committed.entrySet()) {
            Executed executed = entry.getValue();
            if (entry.getKey() <= lastLogged) {
                continue; // installed by a transfer since
            }
            if (entry.getKey() != lastLogged + 1) {
                throw new IllegalStateException("node " + self + ": batch " + entry.getKey() + " committed, but batch "
                        + (lastLogged + 1) + " was never executed here: the log would have a hole");
            }
            storage.append(new LoggedBatch(view, executed.sequential(), executed.batch(), executed.token()));
            lastLogged = entry.getKey();
        }
        committed.clear();
        if (tail != null && lastLogged - storage.forcedSeq() >= TAIL_COMMITTED_BATCHES) {
            // The tail keeps every batch no force of the log covered yet (whatever storage.sync says: a batch
            // only the operating system holds is not on disk); forcing the log lets it drop them.
            storage.want(lastLogged);
        }
        storage.onStable(stage, seq, view);
    }

    /**
     * On the protocol mailbox: the batch whose execution produced {@code reply}, or, for a reply that came from
     * elsewhere (a committed reply sent again), the last batch committed: either way one that must be durable
     * before the reply leaves.
     */
    private long batchOf(Reply reply) {
        executedReplies.headMap(held.durable(), true).clear();
        for (Map.Entry<Long, List<Reply>> entry : executedReplies.entrySet()) {
            for (Reply candidate : entry.getValue()) {
                if (candidate == reply) {
                    return entry.getKey();
                }
            }
        }
        return lastMarkedStable;
    }

    /**
     * In the constructor, after the stage recovered the committed batches: executes again the batches of the
     * executed tail that follow them, each checked against its logged token (a mismatch stops there), and keeps
     * them as executed, not committed, for the roles ({@link ReplicaHost#recoveredExecuted}).
     */
    private void recoverTail() {
        long next = recovered.seq() + 1;
        ExecutedTail.Contents contents = tail.contents();
        recoveredLedView = contents.ledView();
        ledView = recoveredLedView;
        ledRequested = recoveredLedView;
        ledDurable = recoveredLedView;
        for (LoggedBatch logged : contents.batches()) {
            if (logged.seq() < next) {
                continue;
            }
            if (logged.seq() > next) {
                break;
            }
            Executed executed = stage.execute(logged.batch(), logged.sequential());
            if (!executed.token().matches(logged.token())) {
                LOG.warn(
                        "node {}: executing batch {} of {} again gave token {}, the file says {}; stopping there",
                        self,
                        logged.seq(),
                        tail.file(),
                        executed.token(),
                        logged.token());
                stage.rollbackTo(logged.seq() - 1);
                break;
            }
            uncommitted.put(logged.seq(), executed);
            tailBatches.put(logged.seq(), logged);
            recoveredExecuted.add(executed);
            if (held != null) {
                executedReplies.put(logged.seq(), executed.replies());
            }
            next++;
        }
        if (!recoveredExecuted.isEmpty()) {
            LOG.info(
                    "node {}: executed batches {} to {} again from {} (not committed)",
                    self,
                    recovered.seq() + 1,
                    next - 1,
                    tail.file());
        }
    }

    /** On the stage mailbox: the tail changed; a new record of it is queued. Returns its version. */
    private long saveTail() {
        tailBatches.headMap(storage.forcedSeq(), true).clear();
        long version = ++tailVersion;
        tail.save(version, List.copyOf(tailBatches.values()), ledView);
        return version;
    }

    /** On the protocol mailbox: runs {@code task} there once tail record {@code version} is durable. */
    private void afterTailVersion(long version, Runnable task) {
        if (version <= durableTail) {
            task.run();
        } else {
            afterTail.computeIfAbsent(version, v -> new ArrayList<>()).add(task);
        }
    }

    /** On the protocol mailbox: the tail durably says this node led {@code view}; its batches may leave. */
    private void onLedDurable(long view) {
        ledDurable = Math.max(ledDurable, view);
        NavigableMap<Long, List<Runnable>> due = afterLed.headMap(ledDurable, true);
        for (List<Runnable> tasks : due.values()) {
            tasks.forEach(Runnable::run);
        }
        due.clear();
    }

    /** On the writer's thread: record {@code version} of the tail is durable; the tasks that waited run. */
    private void onTailDurable(long version) {
        protocolLater(() -> {
            durableTail = Math.max(durableTail, version);
            NavigableMap<Long, List<Runnable>> due = afterTail.headMap(durableTail, true);
            for (List<Runnable> tasks : due.values()) {
                tasks.forEach(Runnable::run);
            }
            due.clear();
        });
    }

    /** The runtime as the roles see it. */
    private final class Host implements ReplicaHost {
        @Override
        public int self() {
            return self;
        }

        @Override
        public long wallMillis() {
            return ReplicaRuntime.wallMillis();
        }

        @Override
        public void send(int to, Message message) {
            if (to == self) {
                protocol(() -> roles.onMessage(self, message, nanoClock.getAsLong(), wallMillis()));
            } else {
                transport.send(to, message);
            }
        }

        @Override
        public void onProtocol(Runnable task) {
            protocolLater(task);
        }

        @Override
        public void execute(Batch batch, boolean sequential, Consumer<Executed> onExecuted) {
            boolean inline = batch.size() <= inlineBatchLimit && cheapRequests();
            long view = tail == null ? 0 : roles.status().view();
            Runnable run = () -> {
                long start = System.nanoTime();
                Executed executed = stage.execute(batch, sequential);
                if (storage != null) {
                    uncommitted.put(executed.seq(), executed);
                }
                long version = 0;
                if (tail != null) {
                    tailBatches.tailMap(executed.seq(), true).clear();
                    tailBatches.put(
                            executed.seq(), new LoggedBatch(view, sequential, executed.batch(), executed.token()));
                    version = saveTail();
                }
                long tailRecord = version;
                long nanos = System.nanoTime() - start;
                metrics.executed(executed, nanos);
                long perRequest = nanos / Math.max(1, batch.size());
                meanNanosPerRequest += (perRequest - meanNanosPerRequest) / 8;
                Runnable report = () -> {
                    if (held != null) {
                        executedReplies.put(executed.seq(), executed.replies());
                    }
                    if (tailRecord > 0) {
                        tailVersionOf.put(executed.seq(), tailRecord);
                    }
                    onExecuted.accept(executed);
                };
                // A batch run on the stage thread reports without running the roles there: the drain that
                // follows (client requests, commits, replies) would keep the next batch waiting behind it
                // (about 1 ms of idle stage per batch at 16 threads and 1 ms requests).
                if (inline) {
                    protocol(report);
                } else {
                    protocolLater(report);
                }
            };
            if (inline) {
                // Replies this task released (a commit before this batch) leave before it runs, not after.
                transport.flush();
                runOnStage(run);
            } else {
                // The stage may be ending the batch before: it can plan this one, or start its free requests.
                stage.offer(batch, sequential);
                postToStage(run);
            }
        }

        @Override
        public void rollbackTo(long seq) {
            metrics.rollback();
            runOnStage(() -> {
                if (seq >= stage.stableSeq() && seq <= stage.executedSeq()) {
                    stage.rollbackTo(seq);
                    if (storage != null) {
                        uncommitted.tailMap(seq, false).clear();
                        storage.onRolledBack(seq);
                    }
                    if (tail != null) {
                        tailBatches.tailMap(seq, false).clear();
                        saveTail();
                    }
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
            long view = storage == null ? 0 : roles.status().view();
            lastMarkedStable = Math.max(lastMarkedStable, seq);
            if (tail != null) {
                tailVersionOf.keySet().removeIf(batch -> batch <= seq);
            }
            runOnStage(() -> {
                if (seq > stage.stableSeq() && seq <= stage.executedSeq()) {
                    stage.markStable(seq);
                    if (storage != null) {
                        logCommitted(seq, view);
                    }
                }
            });
        }

        @Override
        public void release(Reply reply) {
            metrics.released(reply);
            deliver(reply);
        }

        @Override
        public void resend(Reply reply) {
            metrics.resent();
            deliver(reply);
        }

        private void deliver(Reply reply) {
            if (held == null) {
                sendReply(reply);
            } else {
                held.release(batchOf(reply), reply);
            }
        }

        @Override
        public void apply(StateDelta delta, Token expected, Consumer<ApplyResult> onApplied) {
            long view = storage == null ? 0 : roles.status().view();
            postToStage(() -> {
                ApplyResult result = stage.apply(delta, expected);
                if (storage != null && result.applied()) {
                    // The batches the transfer skipped will never be logged here: checkpoint its state instead.
                    uncommitted.clear();
                    lastLogged = expected.seq();
                    storage.onTransferred(stage, view);
                    if (tail != null) {
                        tailBatches.clear();
                        saveTail();
                    }
                }
                metrics.transferInstalled(result.applied(), delta.size());
                protocol(() -> onApplied.accept(result));
            });
        }

        @Override
        public void onStageThread(Consumer<ExecutionStage> work) {
            postToStage(() -> work.accept(stage));
        }

        @Override
        public void onStage(Consumer<ExecutionStage> work) {
            runOnStage(() -> work.accept(stage));
        }

        @Override
        public long recoveredSeq() {
            return recovered.seq();
        }

        @Override
        public boolean recoveredEveryAcknowledgedBatch() {
            return storage != null && storage.holdsReplies();
        }

        @Override
        public List<Executed> recoveredExecuted() {
            return List.copyOf(recoveredExecuted);
        }

        @Override
        public void afterExecutedDurable(long seq, Runnable task) {
            Long version = tailVersionOf.get(seq);
            if (version == null) {
                task.run();
            } else {
                afterTailVersion(version, task);
            }
        }

        @Override
        public void afterLedDurable(long view, Runnable task) {
            if (tail == null || view <= ledDurable) {
                task.run();
                return;
            }
            afterLed.computeIfAbsent(view, v -> new ArrayList<>()).add(task);
            if (view > ledRequested) {
                ledRequested = view;
                runOnStage(() -> {
                    ledView = Math.max(ledView, view);
                    long version = saveTail();
                    protocolLater(() -> afterTailVersion(version, () -> onLedDurable(view)));
                });
            }
        }

        @Override
        public long recoveredLedView() {
            return recoveredLedView;
        }

        @Override
        public Token recoveredToken() {
            return recoveredToken;
        }

        @Override
        public long recoveredView() {
            return resumeView >= 0 ? resumeView : recovered.view();
        }

        @Override
        public void overlapBatches(LongConsumer onDraining) {
            if (!creatingRoles || stage == null) {
                throw new IllegalStateException("batch overlap is chosen when roles with a stage are created");
            }
            stage.overlap(executorThreads, seq -> protocolLater(() -> onDraining.accept(seq)));
        }
    }
}
