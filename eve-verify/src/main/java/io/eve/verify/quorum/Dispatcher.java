package io.eve.verify.quorum;

import io.eve.Request;
import io.eve.batch.Batch;
import io.eve.batch.Batcher;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The execution primary's side of an {@link ExecutionReplica} (Eve §4.1): batches client requests,
 * numbers them, keeps at most {@code pipelineDepth} batches in flight until they commit, and marks the
 * first batch of its view sequential (Eve §6.1). Part of the replica's state machine; not thread-safe.
 */
final class Dispatcher {
    private final QuorumConfig config;
    private final Batcher batcher;
    private final Consumer<Dispatched> send;
    private final NavigableMap<Long, Dispatched> inFlight = new TreeMap<>();
    private final Deque<Batch> waiting = new ArrayDeque<>();
    private final Set<String> batched = new HashSet<>();
    private boolean sequentialNext;

    /** A batch sent to the execution replicas and not yet committed. */
    record Dispatched(Batch batch, boolean sequential) {}

    Dispatcher(QuorumConfig config, LongSupplier seeds, Consumer<Dispatched> send) {
        this.config = config;
        this.send = send;
        this.batcher = new Batcher(config.maxBatchSize(), config.maxBatchDelayNanos(), 1, seeds);
    }

    /** This replica becomes the primary of a view that starts after batch {@code startSeq}. */
    void lead(long startSeq, List<Request> orphans, long now, long wallMillis) {
        inFlight.clear();
        waiting.clear();
        batched.clear();
        batcher.drain();
        batcher.resumeAfter(startSeq);
        sequentialNext = true;
        for (Request request : orphans) {
            offer(request, now, wallMillis);
        }
        batcher.onIdle(wallMillis).ifPresent(this::enqueue);
    }

    /** This replica is no longer the primary: the requests it took in but never sent in a batch. */
    List<Request> stepDown() {
        List<Request> undispatched = new java.util.ArrayList<>();
        for (Batch batch : waiting) {
            undispatched.addAll(batch.requests());
        }
        undispatched.addAll(batcher.drain());
        inFlight.clear();
        waiting.clear();
        batched.clear();
        return undispatched;
    }

    void offer(Request request, long now, long wallMillis) {
        if (!batched.add(key(request))) {
            return;
        }
        batcher.offer(request, now, wallMillis).ifPresent(this::enqueue);
        if (inFlight.isEmpty() && waiting.isEmpty()) {
            batcher.onIdle(wallMillis).ifPresent(this::enqueue);
        }
    }

    void onTick(long now, long wallMillis) {
        if (roomForPartialBatch()) {
            batcher.onTick(now, wallMillis).ifPresent(this::enqueue);
        }
    }

    /**
     * Whether a batch that is not full may close now (decision 0037): only while the pipeline has room for it.
     * While it is full the requests go on gathering into one batch, instead of several small ones queued behind
     * each other, each of which would pay the per-batch cost (in bft a signature, two signature checks and the
     * agreement messages of every verifier). A full batch closes whenever it fills.
     */
    private boolean roomForPartialBatch() {
        return waiting.isEmpty() && inFlight.size() < config.pipelineDepth();
    }

    /** Batches up to {@code seq} committed: make room in the pipeline. */
    void onCommitted(long seq, long wallMillis) {
        NavigableMap<Long, Dispatched> done = inFlight.headMap(seq, true);
        for (Dispatched dispatched : done.values()) {
            for (Request request : dispatched.batch().requests()) {
                batched.remove(key(request));
            }
        }
        done.clear();
        dispatchWaiting(wallMillis);
    }

    /**
     * The stage runs the last requests of batch {@code seq}: if it is the last batch sent and the pipeline has
     * room, close the batch being filled, so that it can start while {@code seq} ends.
     */
    void onStageDraining(long seq, long wallMillis) {
        if (roomForPartialBatch() && !inFlight.isEmpty() && inFlight.lastKey() == seq) {
            batcher.onIdle(wallMillis).ifPresent(this::enqueue);
        }
    }

    /** The batches in flight, for retransmission. */
    Iterable<Dispatched> inFlight() {
        return inFlight.values();
    }

    private void enqueue(Batch batch) {
        waiting.add(batch);
        dispatchWaiting(Long.MIN_VALUE);
    }

    private void dispatchWaiting(long wallMillis) {
        while (!waiting.isEmpty() && inFlight.size() < config.pipelineDepth()) {
            Batch batch = waiting.poll();
            Dispatched dispatched = new Dispatched(batch, sequentialNext);
            sequentialNext = false;
            inFlight.put(batch.seq(), dispatched);
            send.accept(dispatched);
        }
        if (inFlight.isEmpty() && wallMillis != Long.MIN_VALUE) {
            batcher.onIdle(wallMillis).ifPresent(this::enqueue);
        }
    }

    static String key(Request request) {
        return request.clientId() + ":" + request.requestSeq();
    }
}
