package io.eve.batch;

import io.eve.Request;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The primary's batcher with dynamic batching (Eve §7.6): a batch closes when it reaches the size limit,
 * when the execution stage would otherwise sit idle, or when its oldest request has waited the maximum
 * delay. At low load batches stay small (latency); at high load they fill up (throughput).
 *
 * <p>A deterministic state machine (DESIGN.md section 9): time comes in as an argument, the seed of each
 * batch from the supplied source. Not thread-safe: one protocol thread drives it.
 */
public final class Batcher {
    private final int maxBatchSize;
    private final long maxDelayNanos;
    private final LongSupplier seeds;
    private final List<Request> pending = new ArrayList<>();
    private long oldestPendingAt;
    private long nextSeq;

    /**
     * @param maxBatchSize a batch closes as soon as it holds this many requests
     * @param maxDelayNanos a non-empty batch closes once its oldest request waited this long
     * @param firstSeq the sequence number of the next batch
     * @param seeds where each batch's random seed comes from
     */
    public Batcher(int maxBatchSize, long maxDelayNanos, long firstSeq, LongSupplier seeds) {
        if (maxBatchSize < 1) {
            throw new IllegalArgumentException("maxBatchSize must be at least 1, got " + maxBatchSize);
        }
        if (maxDelayNanos < 0) {
            throw new IllegalArgumentException("maxDelayNanos must not be negative, got " + maxDelayNanos);
        }
        this.maxBatchSize = maxBatchSize;
        this.maxDelayNanos = maxDelayNanos;
        this.nextSeq = firstSeq;
        this.seeds = seeds;
    }

    /** Adds a request; returns a batch if this one filled it. */
    public Optional<Batch> offer(Request request, long nowNanos, long wallMillis) {
        if (pending.isEmpty()) {
            oldestPendingAt = nowNanos;
        }
        pending.add(request);
        return pending.size() >= maxBatchSize ? Optional.of(cut(wallMillis)) : Optional.empty();
    }

    /** The execution stage has nothing to do: close whatever is pending rather than let it idle. */
    public Optional<Batch> onIdle(long wallMillis) {
        return pending.isEmpty() ? Optional.empty() : Optional.of(cut(wallMillis));
    }

    /** Closes the pending batch if its oldest request has waited the maximum delay. */
    public Optional<Batch> onTick(long nowNanos, long wallMillis) {
        if (!pending.isEmpty() && nowNanos - oldestPendingAt >= maxDelayNanos) {
            return Optional.of(cut(wallMillis));
        }
        return Optional.empty();
    }

    public int pendingRequests() {
        return pending.size();
    }

    /** The sequence number the next batch will get. */
    public long nextSeq() {
        return nextSeq;
    }

    /** Continues numbering after {@code seq} (a new primary picks up where the agreed history ends). */
    public void resumeAfter(long seq) {
        nextSeq = seq + 1;
    }

    /** Takes back the requests not yet batched (a primary stepping down hands them to nobody). */
    public List<Request> drain() {
        List<Request> drained = List.copyOf(pending);
        pending.clear();
        return drained;
    }

    private Batch cut(long wallMillis) {
        Batch batch = new Batch(nextSeq++, wallMillis, seeds.getAsLong(), pending);
        pending.clear();
        return batch;
    }
}
