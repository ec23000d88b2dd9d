package io.eve.execution;

import io.eve.Application;
import io.eve.ExecutionContext;
import io.eve.Reply;
import io.eve.Request;
import io.eve.batch.Batch;
import io.eve.merkle.ApplyResult;
import io.eve.merkle.Digest;
import io.eve.merkle.StateDelta;
import io.eve.merkle.codec.HashSink;
import io.eve.mixer.BatchKeys;
import io.eve.mixer.ConflictKeys;
import io.eve.mixer.Mixer;
import io.eve.mixer.ParallelBatch;
import io.eve.mixer.SequentialMixer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * The execution stage of one replica (DESIGN.md section 6): mixes a batch into parallel batches, runs
 * each on the executor threads as a barrier, seals the state and builds the token, chained to the token
 * of the previous version. It also carries out the verification stage's verdicts on the state: mark
 * stable, roll back, produce and apply state transfers.
 *
 * <p>Called by one thread (the replica's stage thread, or the simulator); the executor runs the requests.
 * Batches may be executed ahead of verification (pipelining); a rollback discards every later one.
 */
public final class ExecutionStage {
    /** The conflict key every request of a client writes, so one client's requests keep their order. */
    private static final String CLIENT_KEY = "eve.client";

    private final Application application;
    private final ReplicaState state;
    private final Mixer mixer;
    private final ExecutorService executor;
    private final NavigableMap<Long, Token> tokens = new TreeMap<>();
    /** The timestamp and seed of the batch behind each version that may still be read or rolled back. */
    private final NavigableMap<Long, long[]> clocks = new TreeMap<>();
    /** Read-only requests by the version they read, waiting for it to commit. */
    private final NavigableMap<Long, List<PendingRead>> pendingReads = new TreeMap<>();

    private int pendingReadCount;

    /**
     * @param executor runs the requests of a parallel batch; a direct executor gives sequential,
     *     deterministic execution (the simulator)
     */
    public ExecutionStage(Application application, Mixer mixer, ExecutorService executor) {
        this.application = application;
        this.state = new ReplicaState(application.state());
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
        List<ConflictKeys> keys = new ArrayList<>(batch.size());
        List<ParallelBatch> partition = partition(batch, sequential, keys);
        Reply[] replies = new Reply[batch.size()];
        if (sequential || partition.size() == 1 || partition.size() == batch.size()) {
            for (ParallelBatch parallel : partition) {
                runParallelBatch(batch, parallel, replies);
            }
        } else {
            // No barrier between parallel batches: each request waits only for the earlier ones it conflicts with.
            new DependencyRun(partition, keys).run(executor, index -> replies[index] = runRequest(batch, index));
        }
        Digest root = state.seal(batch.seq());
        List<Reply> inOrder = List.of(replies);
        Token token = Token.of(
                batch.seq(),
                root,
                replyDigest(inOrder),
                tokens.get(batch.seq() - 1).digest());
        tokens.put(batch.seq(), token);
        clocks.put(batch.seq(), new long[] {batch.timestampMillis(), batch.seed()});
        return new Executed(batch, token, inOrder, partition.size(), sequential);
    }

    private List<ParallelBatch> partition(Batch batch, boolean sequential, List<ConflictKeys> keys) {
        boolean unreadable = false;
        for (Request request : batch.requests()) {
            ConflictKeys declared;
            try {
                declared = application.conflictKeys(request.payload());
            } catch (RuntimeException e) {
                // A payload the application cannot classify conflicts with anything: run the batch in order.
                declared = ConflictKeys.none();
                unreadable = true;
            }
            keys.add(declared.andWriting(new ClientKey(request.clientId())));
        }
        Mixer chosen = sequential || unreadable ? new SequentialMixer() : mixer;
        return chosen.mix(new BatchKeys(batch.seq(), batch.seed(), keys));
    }

    private record ClientKey(long clientId) {
        @Override
        public String toString() {
            return CLIENT_KEY + ":" + clientId;
        }
    }

    private void runParallelBatch(Batch batch, ParallelBatch parallel, Reply[] replies) {
        if (parallel.size() == 1) {
            int index = parallel.requests().get(0);
            replies[index] = runRequest(batch, index);
            return;
        }
        List<Future<Reply>> running = new ArrayList<>(parallel.size());
        for (int index : parallel.requests()) {
            running.add(executor.submit(() -> runRequest(batch, index)));
        }
        for (int i = 0; i < running.size(); i++) {
            replies[parallel.requests().get(i)] = await(running.get(i));
        }
    }

    private static Reply await(Future<Reply> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while a parallel batch was running", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the execution stage failed", e.getCause());
        }
    }

    /** Runs one request, or answers it from the reply cache; an application exception is an error reply. */
    private Reply runRequest(Batch batch, int index) {
        Request request = batch.requests().get(index);
        ReplyCache cache = state.replies();
        Reply cached = cache.lookup(request.clientId(), request.requestSeq());
        if (cached != null) {
            return cached;
        }
        ExecutionContext context = new ExecutionContext(
                batch.seq(), index, batch.timestampMillis(), batch.seed(), request.clientId(), request.requestSeq());
        Reply reply;
        try {
            reply = Reply.of(request, application.execute(request.payload(), context));
        } catch (Exception | StackOverflowError e) {
            reply = Reply.failure(request, e);
        }
        cache.record(reply);
        return reply;
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
     * reply is committed) and the request is the client's last; {@code null} otherwise. Lets a replica that
     * caught up by state transfer answer a retried request it never executed.
     */
    public Reply committedReply(long clientId, long requestSeq) {
        if (state.stableSeq() != state.sealedSeq()) {
            return null;
        }
        return state.replies().exactly(clientId, requestSeq);
    }

    /** Batch {@code seq} is committed; the read-only requests that read it or an earlier version are answered. */
    public void markStable(long seq) {
        state.markStable(seq);
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
        long seq = state.sealedSeq();
        long[] clock = clocks.getOrDefault(seq, new long[] {0, 0});
        ExecutionContext context =
                new ExecutionContext(seq, -1, clock[0], clock[1], request.clientId(), request.requestSeq());
        Reply reply;
        try {
            reply = Reply.of(request, application.execute(request.payload(), context));
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
        return state.deltaSince(seq);
    }

    /**
     * Installs another replica's state: rolls back to the delta's base, applies it, and adopts
     * {@code token} as the token of the new version if the state matches it.
     */
    public ApplyResult apply(StateDelta delta, Token token) {
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
