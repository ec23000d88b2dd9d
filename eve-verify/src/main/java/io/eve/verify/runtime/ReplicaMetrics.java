package io.eve.verify.runtime;

import io.eve.Reply;
import io.eve.execution.Executed;
import io.eve.storage.Storage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A replica's counters and histograms (DESIGN.md section 11), tagged with its node id: batches and
 * requests committed, rollbacks, state transfers, batch sizes, parallel batches per batch, and execution
 * time per batch. Thread-safe; read them in-process or export the registry (Prometheus, in the CLI).
 */
public final class ReplicaMetrics {
    private final Counter batchesCommitted;
    private final Counter repliesReleased;
    private final Counter repliesResent;
    private final Counter errorReplies;
    private final Counter rollbacks;
    private final Counter transfers;
    private final Counter transferRefusals;
    private final Counter readsAnswered;
    private final Counter readsReissued;
    private final DistributionSummary transferBytes;
    private final DistributionSummary batchSize;
    private final DistributionSummary parallelBatches;
    private final Timer execution;
    private final AtomicLong lastCommitted = new AtomicLong();
    private final MeterRegistry registry;
    private final String id;
    private volatile Storage storage;

    /** Registers a node's meters in {@code registry}. */
    public ReplicaMetrics(MeterRegistry registry, int node) {
        this.registry = registry;
        this.id = Integer.toString(node);
        batchesCommitted =
                Counter.builder("eve.batches.committed").tag("node", id).register(registry);
        repliesReleased =
                Counter.builder("eve.replies.released").tag("node", id).register(registry);
        repliesResent = Counter.builder("eve.replies.resent").tag("node", id).register(registry);
        errorReplies = Counter.builder("eve.replies.errors").tag("node", id).register(registry);
        rollbacks = Counter.builder("eve.rollbacks").tag("node", id).register(registry);
        transfers = Counter.builder("eve.transfers.installed").tag("node", id).register(registry);
        transferRefusals =
                Counter.builder("eve.transfers.refused").tag("node", id).register(registry);
        readsAnswered = Counter.builder("eve.reads")
                .tag("node", id)
                .tag("outcome", "answered")
                .register(registry);
        readsReissued = Counter.builder("eve.reads")
                .tag("node", id)
                .tag("outcome", "reissue")
                .register(registry);
        transferBytes = DistributionSummary.builder("eve.transfer.bytes")
                .tag("node", id)
                .register(registry);
        batchSize = DistributionSummary.builder("eve.batch.requests")
                .tag("node", id)
                .register(registry);
        parallelBatches = DistributionSummary.builder("eve.batch.parallel")
                .tag("node", id)
                .register(registry);
        execution = Timer.builder("eve.batch.execution")
                .tag("node", id)
                .publishPercentiles(0.5, 0.99)
                .register(registry);
        registry.gauge(
                "eve.committed.seq",
                java.util.List.of(io.micrometer.core.instrument.Tag.of("node", id)),
                lastCommitted);
    }

    public void executed(Executed executed, long nanos) {
        batchSize.record(executed.batch().size());
        parallelBatches.record(executed.parallelBatches());
        execution.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** A committed reply sent again, to a client that retried its request. */
    public void resent() {
        repliesResent.increment();
    }

    public void committed(long seq) {
        batchesCommitted.increment();
        lastCommitted.set(seq);
    }

    /** The reply of a request that committed here, released once per request. */
    public void released(Reply reply) {
        repliesReleased.increment();
        if (reply.error()) {
            errorReplies.increment();
        }
    }

    /** A read-only request answered, or sent back to be reissued as an ordered one. */
    public void read(boolean reissue) {
        (reissue ? readsReissued : readsAnswered).increment();
    }

    public long readsAnswered() {
        return (long) readsAnswered.count();
    }

    public long readsReissued() {
        return (long) readsReissued.count();
    }

    public void rollback() {
        rollbacks.increment();
    }

    public void transferInstalled(boolean applied, int bytes) {
        if (applied) {
            transfers.increment();
            transferBytes.record(bytes);
        } else {
            transferRefusals.increment();
        }
    }

    /** Publishes the node's storage meters: forces of the log and the last durable batch. */
    void storage(Storage storage) {
        this.storage = storage;
        FunctionCounter.builder("eve.storage.forces", storage, Storage::forces)
                .tag("node", id)
                .register(registry);
        Gauge.builder("eve.storage.durable.seq", storage, Storage::durableSeq)
                .tag("node", id)
                .register(registry);
    }

    /** Forces of the storage log so far (0 without storage): with sync = batch, one per group commit. */
    public long storageForces() {
        Storage published = storage;
        return published == null ? 0 : published.forces();
    }

    public long batchesCommitted() {
        return (long) batchesCommitted.count();
    }

    /** Replies of requests committed here, one per request (a retry answered again counts in {@link #repliesResent}). */
    public long repliesReleased() {
        return (long) repliesReleased.count();
    }

    /** Committed replies sent again to clients that retried their requests. */
    public long repliesResent() {
        return (long) repliesResent.count();
    }

    /** State transfers installed so far. */
    public long transfersInstalled() {
        return (long) transfers.count();
    }

    public long rollbacks() {
        return (long) rollbacks.count();
    }

    /** Bytes of state transfers installed so far. */
    public long transferBytes() {
        return (long) transferBytes.totalAmount();
    }

    /** Mean requests per executed batch so far. */
    public double meanBatchSize() {
        return batchSize.mean();
    }

    /** One line for a status display. */
    public String status() {
        return String.format(
                "batches %d, replies %d, rollbacks %d, transfers %d, mean batch %.1f requests in %.1f"
                        + " parallel batches",
                batchesCommitted(),
                repliesReleased(),
                rollbacks(),
                (long) transfers.count(),
                batchSize.mean(),
                parallelBatches.mean());
    }
}
