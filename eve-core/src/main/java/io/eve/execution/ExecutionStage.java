package io.eve.execution;

import io.eve.Application;
import io.eve.ExecutionContext;
import io.eve.PreparedRequest;
import io.eve.Reply;
import io.eve.Request;
import io.eve.batch.Batch;
import io.eve.merkle.ApplyResult;
import io.eve.merkle.Digest;
import io.eve.merkle.ObjectDigest;
import io.eve.merkle.StateDelta;
import io.eve.merkle.UntrackedWriteException;
import io.eve.merkle.codec.HashSink;
import io.eve.merkle.graph.ObjectGraphState;
import io.eve.mixer.BatchKeys;
import io.eve.mixer.ConflictKeys;
import io.eve.mixer.Mixer;
import io.eve.mixer.ParallelBatch;
import io.eve.mixer.Partition;
import io.eve.mixer.SequentialMixer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The execution stage of one replica (DESIGN.md section 6): mixes a batch into parallel batches, runs
 * them on the executor threads (each request once the earlier ones it conflicts with, under the keys the
 * mixer used, have finished: {@link DependencyRun}), seals the state and builds the token, chained to the token
 * of the previous version. It also carries out the verification stage's verdicts on the state: mark
 * stable, roll back, produce and apply state transfers.
 *
 * <p>Called by one thread (the replica's stage thread, or the simulator); the executor runs the requests.
 * Batches may be executed ahead of verification (pipelining); a rollback discards every later one.
 *
 * <p>With {@link #overlap} on and a state that supports it, consecutive batches overlap (docs/state.md,
 * "Overlapping batches"): while batch n ends, the stage takes batch n + 1 from {@link #offer} and starts
 * its requests that conflict with nothing of batch n, each writing as batch n + 1; the others wait for
 * n's seal. A write the conflict keys did not announce, to an object of the other batch, makes the stage
 * roll both back and run n again alone. Any other operation first cancels a batch started early (its
 * writes are undone; it runs again when it is executed).
 */
public final class ExecutionStage {
    private final ReplicaState state;
    private final DecodedBatches decoded;
    private final Mixer mixer;
    private final ExecutorService executor;
    private final NavigableMap<Long, Token> tokens = new TreeMap<>();
    /** The timestamp and seed of the batch behind each version that may still be read or rolled back. */
    private final NavigableMap<Long, long[]> clocks = new TreeMap<>();
    /** Read-only requests by the version they read, waiting for it to commit. */
    private final NavigableMap<Long, List<PendingRead>> pendingReads = new TreeMap<>();

    private int pendingReadCount;

    private int overlapThreads;
    private LongConsumer onDraining = seq -> {};
    /** The requests that may run now, of the batch in progress and of the one started early, best first. */
    private final ReadyQueue ready = new ReadyQueue();

    private final Object offerLock = new Object();
    /** Batches announced and not yet taken, by number: a pipelined replica hands over several at a time. */
    private final NavigableMap<Long, Offer> offered = new TreeMap<>();

    private volatile DependencyRun waitingOn;
    /** The batch after the last executed one, started early, or {@code null}. */
    private Run started;
    /** The batch after the one in progress, planned while that one ran but not started, or {@code null}. */
    private Run prepared;
    /** Batches left to run without overlap after a cross-batch conflict. */
    private int overlapBackoff;
    /** Cross-batch conflicts since a batch last sealed cleanly while the next one ran early. */
    private int conflictStreak;

    private final AtomicLong overlappedRequests = new AtomicLong();
    private final AtomicLong overlapConflicts = new AtomicLong();
    private static final Logger LOG = LoggerFactory.getLogger(ExecutionStage.class);
    /** Batches run again because the debug mode found writes without modify (manual tracking). */
    private final AtomicLong untrackedRetries = new AtomicLong();

    private final AtomicLong overlapCancels = new AtomicLong();
    private final AtomicLong preparedBatches = new AtomicLong();

    private record Offer(Batch batch, boolean sequential) {}

    /** A batch run: its partition and, when it runs on the executor without barriers, its run. */
    private static final class Run {
        final Batch batch;
        final boolean sequential;
        final List<PreparedRequest> requests;
        final List<ConflictKeys> keys;
        final List<ParallelBatch> partition;
        final Reply[] replies;
        final boolean[] executed;
        /** The replies of requests that ran in this batch, for a copy of one later in the same batch. */
        final ConcurrentHashMap<RequestKey, Reply> latest = new ConcurrentHashMap<>();
        /**
         * For a batch started early, each client's highest acknowledged mark in the batch before it, which is
         * not yet recorded: decisions must be those the sealed cache would give (see {@link ReplyCache}).
         */
        Map<Long, Long> floors = Map.of();
        /**
         * Each client's mark as first read by a request of this batch, raised by its floor: read once per client
         * and batch (a read of the cache's trie hashes the key) rather than once per request.
         */
        final ConcurrentHashMap<Long, Long> marks = new ConcurrentHashMap<>();

        DependencyRun dependencies;

        Run(
                Batch batch,
                boolean sequential,
                List<PreparedRequest> requests,
                List<ConflictKeys> keys,
                List<ParallelBatch> partition) {
            this.batch = batch;
            this.sequential = sequential;
            this.requests = requests;
            this.keys = keys;
            this.partition = partition;
            this.replies = new Reply[batch.size()];
            this.executed = new boolean[batch.size()];
        }
    }

    /**
     * @param executor runs the requests of a parallel batch; a direct executor gives sequential,
     *     deterministic execution (the simulator)
     */
    public ExecutionStage(Application application, Mixer mixer, ExecutorService executor) {
        this.state = new ReplicaState(application.state());
        this.decoded = new DecodedBatches(application);
        this.mixer = mixer;
        this.executor = executor;
        tokens.put(0L, Token.genesis(state.rootAt(0)));
        clocks.put(0L, new long[] {0, 0});
    }

    public ReplicaState state() {
        return state;
    }

    /** The token of the last executed batch. */
    public Token lastToken() {
        return tokens.lastEntry().getValue();
    }

    public Token tokenAt(long seq) {
        return tokens.get(seq);
    }

    public long executedSeq() {
        return state.sealedSeq();
    }

    public long stableSeq() {
        return state.stableSeq();
    }

    /**
     * Executes the next batch. With {@code sequential}, one request at a time in batch order (Eve §4.2:
     * the batch after a rollback).
     */
    public Executed execute(Batch batch, boolean sequential) {
        if (batch.seq() != state.sealedSeq() + 1) {
            throw new IllegalStateException("batch " + batch.seq() + " cannot run on version " + state.sealedSeq());
        }
        Run run;
        if (started != null && !sequential && started.batch.equals(batch)) {
            run = started;
            started = null;
        } else {
            cancelStarted();
            run = preparedOrPlan(batch, sequential);
            if (run == prepared) {
                preparedBatches.incrementAndGet();
            }
            prepared = null;
            if (run.dependencies != null) {
                run.dependencies.onDraining(overlapThreads, () -> onDraining.accept(batch.seq()));
                run.dependencies.start(executor, ready, batch.seq(), index -> runRequest(run, index));
            }
        }
        if (run.dependencies == null) {
            for (ParallelBatch parallel : run.partition) {
                runParallelBatch(run, parallel);
            }
        } else {
            awaitTakingOffers(run);
        }
        recordReplies(run);
        Digest root;
        try {
            root = state.seal(batch.seq());
        } catch (UntrackedWriteException e) {
            // Debug mode with manual tracking: objects changed without modify. They are put back; undo the
            // rest of the batch and run it again alone, whose seal keeps the writes (docs/state.md).
            LOG.warn("batch {}: {}", batch.seq(), e.getMessage());
            untrackedRetries.incrementAndGet();
            state.rollbackTo(batch.seq() - 1);
            return execute(batch, true);
        }
        if (state.takeCrossBatchConflict()) {
            // A request wrote an object of the other open batch: neither version is sound. Undo both and run
            // this batch again alone; the next one runs when it is executed.
            overlapConflicts.incrementAndGet();
            overlapBackoff = backoffAfter(++conflictStreak);
            Run early = started;
            started = null;
            if (early != null) {
                early.dependencies.cancel();
            }
            state.rollbackTo(batch.seq() - 1);
            return execute(batch, sequential);
        }
        if (started != null) {
            conflictStreak = 0; // this batch and the one started early kept to their own objects
            started.dependencies.openGate();
        }
        if (overlapBackoff > 0) {
            overlapBackoff--;
        }
        List<Reply> inOrder = List.of(run.replies);
        Token token = Token.of(
                batch.seq(),
                root,
                replyDigest(inOrder),
                tokens.get(batch.seq() - 1).digest());
        tokens.put(batch.seq(), token);
        clocks.put(batch.seq(), new long[] {batch.timestampMillis(), batch.seed()});
        // A sequential run is the one whose tokens, if they still differ, call for naming the objects: only it
        // pays for reading them (docs/state.md, "Diagnosing a batch that still differs").
        Optional<List<ObjectDigest>> objects = sequential ? state.objectDigests(batch.seq()) : Optional.empty();
        return new Executed(batch, token, inOrder, run.partition.size(), sequential, objects);
    }

    /**
     * Replies enter the cache in batch order, on this thread, so no request of a batch started early ever
     * writes it. Such a request reads it while this runs; it decides alike before and after (its own copies
     * in this batch hold it back, and {@link Run#floors} stands in for the marks raised here).
     */
    private void recordReplies(Run run) {
        state.replies().recordBatch(run.batch.requests(), run.replies, run.executed);
    }

    /** Offers kept at most: a replica runs a few batches ahead of verification, not more. */
    static final int MAX_OFFERS = 64;

    /** After a conflict between overlapping batches, how many batches run without overlap, at least. */
    static final int OVERLAP_BACKOFF_BATCHES = 16;

    /** Doublings of the backoff for conflicts in a row: at most 16 x 64 = 1,024 batches without overlap. */
    static final int MAX_BACKOFF_DOUBLINGS = 6;

    /**
     * Batches to run without overlap after the {@code streak}-th conflict in a row. A state whose batches
     * always meet (every request writes one shared collection) would otherwise run two batches again
     * every 17; doubling makes that one pair in about a thousand batches, while a rare conflict (a
     * mistaken prediction) costs only the first 16.
     */
    static int backoffAfter(int streak) {
        if (streak < 1) {
            throw new IllegalArgumentException("a backoff follows at least one conflict, got a streak of " + streak);
        }
        return OVERLAP_BACKOFF_BATCHES << Math.min(streak - 1, MAX_BACKOFF_DOUBLINGS);
    }

    /**
     * Turns batch overlap on: {@code threads} is the executor's size, and {@code onDraining} hears, on an
     * executor thread, the number of a batch that has no more unfinished requests than threads (so the
     * executor is about to have idle threads: a good moment to hand the stage the next batch).
     */
    public void overlap(int threads, LongConsumer onDraining) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        }
        this.overlapThreads = threads;
        this.onDraining = Objects.requireNonNull(onDraining, "onDraining");
    }

    /**
     * Announces the batch that will be executed after the one running, from any thread. While the running
     * batch's requests execute, the stage thread plans this one (conflict keys, mix, dependencies), so that
     * work is off the path between two batches; with overlap on it may also start its requests early.
     * {@link #execute} must still be called for it, and runs it as planned only if it is the same batch.
     */
    public void offer(Batch batch, boolean sequential) {
        synchronized (offerLock) {
            offered.put(batch.seq(), new Offer(batch, sequential));
            while (offered.size() > MAX_OFFERS) {
                offered.pollLastEntry(); // the nearest batches are the ones planned soonest
            }
        }
        DependencyRun current = waitingOn;
        if (current != null) {
            current.wake();
        }
    }

    /** Requests started before the previous batch was sealed, since the stage was built. */
    public long overlappedRequests() {
        return overlappedRequests.get();
    }

    /** Cross-batch conflicts that made the stage run a batch again alone. */
    public long overlapConflicts() {
        return overlapConflicts.get();
    }

    /** Batches run again sequentially because the debug mode found writes without {@code modify}. */
    public long untrackedRetries() {
        return untrackedRetries.get();
    }

    /** Batches run as planned while the batch before them ran (offered in time, and not started early). */
    public long preparedBatches() {
        return preparedBatches.get();
    }

    /** Batches started early and then cancelled (by a rollback, a transfer, a read between batches). */
    public long overlapCancels() {
        return overlapCancels.get();
    }

    private Run plan(Batch batch, boolean sequential) {
        List<PreparedRequest> requests = decoded.of(batch);
        List<ConflictKeys> keys = new ArrayList<>(batch.size());
        Partition mixed = partition(batch, sequential, requests, keys);
        List<ParallelBatch> partition = mixed.parallelBatches();
        Run run = new Run(batch, sequential, requests, keys, partition);
        if (!sequential && batch.size() > 1 && partition.size() < batch.size()) {
            // No barrier between parallel batches: each request waits only for the earlier ones it conflicts
            // with, under the keys the mixer split by (an experiment's mistakes included).
            run.dependencies = new DependencyRun(partition, mixed.keys().requests(), keys);
        }
        return run;
    }

    /** The plan made when {@code batch} was offered, if it was (conflict keys are a function of the payload). */
    private Run preparedOrPlan(Batch batch, boolean sequential) {
        Run planned = prepared;
        if (planned != null && planned.sequential == sequential && planned.batch.equals(batch)) {
            return planned;
        }
        return plan(batch, sequential);
    }

    /** Waits for {@code run}, and meanwhile starts the offered next batch when it can overlap. */
    private void awaitTakingOffers(Run run) {
        waitingOn = run.dependencies;
        try {
            while (!run.dependencies.isDone()) {
                Offer offer;
                synchronized (offerLock) {
                    // Only the batch right after the running one can be planned now; older ones are stale.
                    long next = run.batch.seq() + 1;
                    offered.headMap(next, false).clear();
                    offer = started == null && prepared == null ? offered.remove(next) : null;
                }
                if (offer != null) {
                    takeOffer(run, offer);
                }
                run.dependencies.park();
            }
        } finally {
            waitingOn = null;
        }
        run.dependencies.await();
    }

    /** Plans the offered next batch and, when overlap is on and allowed, starts it. */
    private void takeOffer(Run current, Offer offer) {
        long seq = current.batch.seq();
        if (started != null || offer.batch().seq() != seq + 1) {
            return;
        }
        Run next = preparedOrPlan(offer.batch(), offer.sequential());
        prepared = next;
        if (overlapThreads == 0
                || offer.sequential()
                || next.dependencies == null
                || overlapBackoff > 0
                || !state.canOverlap(seq)) {
            return;
        }
        prepared = null;
        startEarly(current, next);
    }

    private void startEarly(Run current, Run next) {
        long seq = current.batch.seq();
        Set<Object> writes = new HashSet<>();
        Set<Object> reads = new HashSet<>();
        for (ConflictKeys keys : current.keys) {
            writes.addAll(keys.writes());
            reads.addAll(keys.reads());
        }
        int held = next.dependencies.holdConflictsWith(writes, reads);
        overlappedRequests.addAndGet(next.batch.size() - held);
        next.floors = floors(current.batch);
        state.openNext(seq + 1);
        long nextSeq = seq + 1;
        next.dependencies.onDraining(overlapThreads, () -> onDraining.accept(nextSeq));
        next.dependencies.start(
                executor, ready, nextSeq, index -> ObjectGraphState.runAsBatch(nextSeq, () -> runRequest(next, index)));
        started = next;
    }

    /** Each client's highest lowest-unanswered number in {@code batch}. */
    private static Map<Long, Long> floors(Batch batch) {
        Map<Long, Long> floors = new HashMap<>();
        for (Request request : batch.requests()) {
            floors.merge(request.clientId(), request.lowestUnanswered(), Math::max);
        }
        return floors;
    }

    /** Stops and undoes a batch started early, before anything else touches the state. */
    private void cancelStarted() {
        Run early = started;
        if (early == null) {
            return;
        }
        started = null;
        overlapCancels.incrementAndGet();
        early.dependencies.cancel();
        // The early batch is the one in progress now (the one before it is sealed): undo its writes.
        state.rollbackTo(state.sealedSeq());
    }

    private Partition partition(
            Batch batch, boolean sequential, List<PreparedRequest> requests, List<ConflictKeys> keys) {
        boolean unreadable = false;
        for (int i = 0; i < batch.size(); i++) {
            Request request = batch.requests().get(i);
            ConflictKeys declared;
            try {
                declared = requests.get(i).conflictKeys();
            } catch (RuntimeException e) {
                // A payload the application cannot classify conflicts with anything: run the batch in order.
                declared = ConflictKeys.none();
                unreadable = true;
            }
            keys.add(declared.andWriting(RequestKey.of(request)));
        }
        Mixer chosen = sequential || unreadable ? new SequentialMixer() : mixer;
        return chosen.partition(new BatchKeys(batch.seq(), batch.seed(), keys));
    }

    /**
     * The conflict key every request writes: unique to the request, so a client's concurrent requests share
     * parallel batches, while copies of one request (a retry batched with the original, or in the batch that
     * overlaps it) run one after the other and the later copy finds the earlier one's reply.
     */
    private record RequestKey(long clientId, long requestSeq) {
        static RequestKey of(Request request) {
            return new RequestKey(request.clientId(), request.requestSeq());
        }

        @Override
        public String toString() {
            return "eve.request:" + clientId + ":" + requestSeq;
        }
    }

    private void runParallelBatch(Run run, ParallelBatch parallel) {
        if (parallel.size() == 1) {
            runRequest(run, parallel.requests().get(0));
            return;
        }
        List<Future<?>> running = new ArrayList<>(parallel.size());
        for (int index : parallel.requests()) {
            running.add(executor.submit(() -> runRequest(run, index)));
        }
        running.forEach(ExecutionStage::await);
    }

    private static void await(Future<?> future) {
        try {
            future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while a parallel batch was running", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the execution stage failed", e.getCause());
        }
    }

    /**
     * Runs one request, or answers it from the reply cache; an application exception is an error reply.
     * The reply is recorded in the cache when the batch is sealed.
     */
    private void runRequest(Run run, int index) {
        Batch batch = run.batch;
        Request request = batch.requests().get(index);
        RequestKey key = RequestKey.of(request);
        Reply cached = run.latest.get(key);
        if (cached == null) {
            Long known = run.marks.get(request.clientId());
            if (known == null) {
                // Two threads may both read it, before and after the batch before records its marks: once raised
                // by the floor (which stands in for those marks), the reads agree.
                known = Math.max(
                        state.replies().mark(request.clientId()), run.floors.getOrDefault(request.clientId(), 0L));
                run.marks.putIfAbsent(request.clientId(), known);
            }
            cached = state.replies().lookupAbove(request, known);
        }
        if (cached != null) {
            run.replies[index] = cached;
            return;
        }
        ExecutionContext context = new ExecutionContext(
                batch.seq(), index, batch.timestampMillis(), batch.seed(), request.clientId(), request.requestSeq());
        Reply reply = executeAtomically(request, run.requests.get(index), context);
        run.replies[index] = reply;
        run.executed[index] = true;
        run.latest.put(key, reply);
    }

    /**
     * Runs one request on the calling executor thread; if it throws, its writes are undone (and only its:
     * the other requests of the batch keep theirs) and the exception becomes its error reply. Any other
     * throwable also undoes the writes, then stops the stage.
     */
    private Reply executeAtomically(Request request, PreparedRequest prepared, ExecutionContext context) {
        state.beginRequest();
        boolean closed = false;
        try {
            byte[] result = prepared.execute(context);
            state.endRequest();
            closed = true;
            return Reply.of(request, result);
        } catch (Exception | StackOverflowError e) {
            state.abortRequest();
            closed = true;
            return Reply.failure(request, e);
        } finally {
            if (!closed) {
                state.abortRequest();
            }
        }
    }

    static Digest replyDigest(List<Reply> replies) {
        HashSink sink = HashSink.forCurrentThread();
        sink.putByte(0x11);
        sink.putInt(replies.size());
        for (Reply reply : replies) {
            sink.putLong(reply.clientId());
            sink.putLong(reply.requestSeq());
            sink.putBoolean(reply.error());
            sink.putByteArray(reply.payload());
        }
        return sink.finish();
    }

    /**
     * The reply to a client's request from the reply cache, if the state holds no tentative version (so the
     * reply is committed) and the cache still keeps it (the request ran and the client did not acknowledge
     * it yet); {@code null} otherwise. Lets a replica that caught up by state transfer answer a retried
     * request it never executed.
     */
    public Reply committedReply(long clientId, long requestSeq) {
        if (state.stableSeq() != state.sealedSeq()) {
            return null;
        }
        return state.replies().cached(clientId, requestSeq);
    }

    /** Batch {@code seq} is committed; the read-only requests that read it or an earlier version are answered. */
    public void markStable(long seq) {
        state.markStable(seq);
        decoded.discardThrough(seq);
        tokens.headMap(seq, false).clear();
        clocks.headMap(seq, false).clear();
        NavigableMap<Long, List<PendingRead>> committed = pendingReads.headMap(seq, true);
        for (List<PendingRead> reads : committed.values()) {
            for (PendingRead read : reads) {
                read.answer().answer(read.reply(), false);
            }
            pendingReadCount -= reads.size();
        }
        committed.clear();
    }

    /**
     * Discards every version after {@code seq} (Eve §4: rollback to the last stable or agreed version); the
     * read-only requests that read a discarded version are told to reissue.
     */
    public void rollbackTo(long seq) {
        cancelStarted();
        state.rollbackTo(seq);
        tokens.tailMap(seq, false).clear();
        clocks.tailMap(seq, false).clear();
        NavigableMap<Long, List<PendingRead>> discarded = pendingReads.tailMap(seq, false);
        for (List<PendingRead> reads : discarded.values()) {
            for (PendingRead read : reads) {
                reissue(read.reply(), "the version it read was rolled back", read.answer());
            }
            pendingReadCount -= reads.size();
        }
        discarded.clear();
    }

    /**
     * Eve §6's read-only optimisation, replica side: runs {@code request} now, between batches, on the last
     * executed version, and answers once that version is committed (at once if it is), so a reply never
     * shows state that may still be rolled back. The client accepts the answer only if every execution
     * replica gave the same one, and otherwise sends the request again as an ordered one.
     *
     * <p>The request sees the version's batch number, timestamp and seed in its {@link ExecutionContext}
     * (position -1; timestamp and seed 0 for a version installed by state transfer). A request that writes
     * to the state is not read-only: its writes are discarded and the client told to reissue it. At most
     * {@code maxPending} reads wait for a commit; more are told to reissue.
     */
    public void read(Request request, int maxPending, ReadAnswer answer) {
        cancelStarted();
        long seq = state.sealedSeq();
        long[] clock = clocks.getOrDefault(seq, new long[] {0, 0});
        ExecutionContext context =
                new ExecutionContext(seq, -1, clock[0], clock[1], request.clientId(), request.requestSeq());
        Reply reply;
        try {
            reply = Reply.of(request, decoded.prepare(request).execute(context));
        } catch (Exception | StackOverflowError e) {
            reply = Reply.failure(request, e);
        }
        if (state.hasUnsealedWrites()) {
            state.rollbackTo(seq);
            reissue(reply, "it wrote to the state (its writes were discarded)", answer);
        } else if (seq <= state.stableSeq()) {
            answer.answer(reply, false);
        } else if (pendingReadCount >= maxPending) {
            reissue(reply, maxPending + " read-only requests already wait for a commit", answer);
        } else {
            pendingReads.computeIfAbsent(seq, s -> new ArrayList<>()).add(new PendingRead(reply, answer));
            pendingReadCount++;
        }
    }

    /** Read-only requests waiting for the version they read to commit. */
    public int pendingReads() {
        return pendingReadCount;
    }

    private static void reissue(Reply read, String why, ReadAnswer answer) {
        String text = "read-only request " + read.requestSeq() + " of client " + read.clientId() + " not answered: "
                + why + "; send it as an ordered request";
        answer.answer(new Reply(read.clientId(), read.requestSeq(), true, text.getBytes(StandardCharsets.UTF_8)), true);
    }

    /** Where the answer to a read-only request goes, on the stage's thread. */
    @FunctionalInterface
    public interface ReadAnswer {
        /**
         * @param reissue whether the replica could not answer ({@code reply}'s error text says why) and the
         *     client should send the request as an ordered one
         */
        void answer(Reply reply, boolean reissue);
    }

    private record PendingRead(Reply reply, ReadAnswer answer) {}

    /** The changes since {@code seq}, for a replica at that version. */
    public StateDelta deltaSince(long seq) {
        cancelStarted();
        return state.deltaSince(seq);
    }

    /**
     * The changes from {@code seq} to the kept version {@code targetSeq}, with that version's content, for a
     * replica at {@code seq} (VersionedState#deltaSince(long, long)).
     */
    public StateDelta deltaSince(long seq, long targetSeq) {
        cancelStarted();
        return state.deltaSince(seq, targetSeq);
    }

    /**
     * Installs another replica's state: rolls back to the delta's base, applies it, and adopts
     * {@code token} as the token of the new version if the state matches it.
     */
    public ApplyResult apply(StateDelta delta, Token token) {
        cancelStarted();
        long base = delta.baseSeq();
        if (base < state.stableSeq() || base > state.sealedSeq()) {
            return ApplyResult.rejected(
                    null,
                    "a transfer from version " + base + " does not fit this replica, whose" + " versions run from "
                            + state.stableSeq() + " to " + state.sealedSeq());
        }
        if (state.sealedSeq() != base) {
            rollbackTo(base);
        }
        ApplyResult result = state.apply(delta, token.seq(), token.stateRoot());
        if (result.applied()) {
            tokens.put(token.seq(), token);
        }
        return result;
    }
}
