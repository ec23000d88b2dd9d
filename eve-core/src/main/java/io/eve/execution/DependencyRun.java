package io.eve.execution;

import io.eve.mixer.ConflictKeys;
import io.eve.mixer.ParallelBatch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;

/**
 * Runs the parallel batches of one batch without a barrier between them: a request starts as soon as
 * every request of an earlier parallel batch that it conflicts with has finished, instead of waiting for
 * the whole earlier parallel batch. Conflicting requests therefore run in exactly the order the barriers
 * would have imposed, and each sees what it would have seen; requests that do not conflict never wait
 * for each other, so one slow request no longer idles every executor thread at the end of its parallel
 * batch (measured in docs/benchmarks.md).
 *
 * <p>"Conflicts" means under the keys the mixer split the batch by ({@link io.eve.mixer.Partition#keys()}),
 * which an experiment decorator may have changed: a pair the mixer was told conflicts (a false positive)
 * runs one after the other, and a conflicting pair the mixer was told is independent (a false negative)
 * races unless a chain of other conflicts orders it, wherever the split placed it (docs/mixer.md).
 * Requests in the same parallel batch get no order, as with barriers.
 *
 * <p>A run can also start before the previous batch is sealed (batch overlap): the requests that conflict
 * with anything of the previous batch are held behind a gate that the stage opens after that seal. The
 * gate compares the keys the application declared, since the mixer never sees two batches together.
 *
 * <p>One use per batch, from the stage thread; the request body runs on the executor.
 */
final class DependencyRun {
    private final int[] order;
    private final int[] waitingFor;
    /** For each request, the longest chain of requests that wait for it, directly or not. */
    private final int[] chain;

    private final List<List<Integer>> successors;
    private final AtomicInteger[] remaining;
    private final boolean[] gated;
    private final List<ConflictKeys> declared;

    private CountDownLatch done;
    private final AtomicInteger unfinished = new AtomicInteger();
    private AtomicReference<Throwable> failure;
    private Executor executor;
    private ReadyQueue queue;
    private long seq;
    private IntConsumer body;
    private volatile boolean cancelled;
    private volatile Thread waiter;
    private boolean gateOpen = true;
    private Runnable onDraining = () -> {};
    private int drainingAt = -1;

    /**
     * A run ordered by the keys the application declared, for a mixer that mixed by them unchanged.
     *
     * @param partition the mixer's parallel batches, in order
     * @param keys each request's conflict keys, by position in the batch
     */
    DependencyRun(List<ParallelBatch> partition, List<ConflictKeys> keys) {
        this(partition, keys, keys);
    }

    /**
     * @param partition the mixer's parallel batches, in order
     * @param ordering the conflict keys the mixer split the batch by, by position: they order the requests
     * @param declared the conflict keys the application declared, by position: they gate an overlapping start
     */
    DependencyRun(List<ParallelBatch> partition, List<ConflictKeys> ordering, List<ConflictKeys> declared) {
        int size = declared.size();
        if (ordering.size() != size) {
            throw new IllegalArgumentException(
                    "ordering keys for " + ordering.size() + " requests, declared keys for " + size);
        }
        this.declared = declared;
        this.gated = new boolean[size];
        this.order = new int[size];
        this.waitingFor = new int[size];
        this.successors = new ArrayList<>(size);
        this.remaining = new AtomicInteger[size];
        for (int i = 0; i < size; i++) {
            successors.add(new ArrayList<>(2));
        }
        // For each key, the requests of earlier parallel batches that last wrote it and that read it since.
        // About two keys per request (the application's and the request's own): sized so that filling it
        // never rehashes.
        Map<Object, KeyUse> uses = new HashMap<>(3 * size);
        int next = 0;
        for (ParallelBatch parallel : partition) {
            for (int request : parallel.requests()) {
                order[next++] = request;
                ConflictKeys used = ordering.get(request);
                for (Object key : used.reads()) {
                    KeyUse use = uses.get(key);
                    if (use != null) {
                        use.writers.forEach(writer -> dependOn(request, writer));
                    }
                }
                for (Object key : used.writes()) {
                    KeyUse use = uses.get(key);
                    if (use != null) {
                        use.writers.forEach(writer -> dependOn(request, writer));
                        use.readers.forEach(reader -> dependOn(request, reader));
                    }
                }
            }
            // Register this parallel batch's uses only now: requests of one parallel batch never wait for each
            // other. Writes first, since a write starts a key's history afresh for the requests after it.
            for (int request : parallel.requests()) {
                for (Object key : ordering.get(request).writes()) {
                    KeyUse use = uses.computeIfAbsent(key, k -> new KeyUse());
                    if (use.writersBatch != parallel) {
                        use.writers.clear();
                        use.readers.clear();
                        use.writersBatch = parallel;
                    }
                    use.writers.add(request);
                }
            }
            for (int request : parallel.requests()) {
                ConflictKeys used = ordering.get(request);
                for (Object key : used.reads()) {
                    if (!used.writes().contains(key)) {
                        uses.computeIfAbsent(key, k -> new KeyUse()).readers.add(request);
                    }
                }
            }
        }
        if (next != size) {
            throw new IllegalArgumentException("the partition places " + next + " requests, the batch holds " + size);
        }
        // Successors come later in the order, so one pass backwards sees every successor's chain first.
        this.chain = new int[size];
        for (int i = size - 1; i >= 0; i--) {
            int request = order[i];
            for (int successor : successors.get(request)) {
                chain[request] = Math.max(chain[request], chain[successor] + 1);
            }
        }
    }

    /** Who last wrote a key (all writers of one parallel batch) and who read it after them. */
    private static final class KeyUse {
        final List<Integer> writers = new ArrayList<>(1);
        final List<Integer> readers = new ArrayList<>(1);
        ParallelBatch writersBatch;
    }

    private void dependOn(int request, int earlier) {
        List<Integer> after = successors.get(earlier);
        // A request may reach the same predecessor through several keys; count it once.
        if (after.isEmpty() || after.get(after.size() - 1) != request) {
            after.add(request);
            waitingFor[request]++;
        }
    }

    /** How many requests wait for {@code request} one after the other at most (for tests). */
    int chain(int request) {
        return chain[request];
    }

    /** How many earlier requests {@code request} waits for (for tests). */
    int waitingFor(int request) {
        return waitingFor[request];
    }

    /**
     * Runs every request with {@code body} on {@code executor}, each once its predecessors finished, and
     * returns when all have. The first exception a body throws is rethrown once all runnable work ended.
     */
    void run(Executor executor, IntConsumer body) {
        start(executor, new ReadyQueue(), 0, body);
        await();
    }

    /**
     * Holds back, until {@link #openGate}, every request that conflicts with a key of {@code previous}
     * (written there and read or written here, or read there and written here). Before {@link #start}.
     *
     * @return how many requests are held
     */
    int holdConflictsWith(Set<Object> previousWrites, Set<Object> previousReads) {
        int held = 0;
        for (int request = 0; request < gated.length; request++) {
            ConflictKeys own = declared.get(request);
            boolean conflict = false;
            for (Object key : own.writes()) {
                conflict |= previousWrites.contains(key) || previousReads.contains(key);
            }
            for (Object key : own.reads()) {
                conflict |= previousWrites.contains(key);
            }
            if (conflict) {
                gated[request] = true;
                waitingFor[request]++;
                held++;
            }
        }
        gateOpen = held == 0;
        return held;
    }

    /** Calls {@code listener} once, on an executor thread, when at most {@code requests} remain unfinished. */
    void onDraining(int requests, Runnable listener) {
        this.drainingAt = requests;
        this.onDraining = listener;
    }

    /**
     * Starts the requests that wait for nothing, and returns. Ready requests go through {@code queue}, which
     * ranks them by batch number {@code seq} (shared with a batch started early) and by chain length.
     */
    void start(Executor executor, ReadyQueue queue, long seq, IntConsumer body) {
        this.executor = executor;
        this.queue = queue;
        this.seq = seq;
        this.body = body;
        this.done = new CountDownLatch(order.length);
        this.unfinished.set(order.length);
        this.failure = new AtomicReference<>();
        for (int i = 0; i < remaining.length; i++) {
            remaining[i] = new AtomicInteger(waitingFor[i]);
        }
        if (order.length <= drainingAt) {
            onDraining.run();
        }
        for (int request : order) {
            if (waitingFor[request] == 0) {
                submit(request);
            }
        }
    }

    /** Lets the held requests start (each once its other predecessors finished). Once, from the stage thread. */
    void openGate() {
        if (gateOpen) {
            return;
        }
        gateOpen = true;
        for (int request : order) {
            if (gated[request] && remaining[request].decrementAndGet() == 0) {
                submit(request);
            }
        }
    }

    /** Whether every request finished (or, cancelled, was skipped). */
    boolean isDone() {
        return done.getCount() == 0;
    }

    /**
     * Parks the calling thread until the run is done or {@link #wake} is called (or spuriously): the stage
     * thread waits this way so that it can also take the next batch while this one ends.
     */
    void park() {
        waiter = Thread.currentThread();
        if (!isDone()) {
            LockSupport.park(this);
        }
        waiter = null;
    }

    /** Wakes the thread parked in {@link #park}, if any. */
    void wake() {
        Thread parked = waiter;
        if (parked != null) {
            LockSupport.unpark(parked);
        }
    }

    /** Waits until every request finished; rethrows the first exception a body threw. */
    void await() {
        try {
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while a batch was running", e);
        }
        Throwable thrown = failure.get();
        if (thrown != null) {
            throw new IllegalStateException("the execution stage failed", thrown);
        }
    }

    /**
     * Stops the run: requests not yet started are skipped, and the call returns once those already running
     * finished. From the stage thread.
     */
    void cancel() {
        cancelled = true;
        openGate();
        try {
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while cancelling a batch", e);
        }
    }

    private void submit(int request) {
        queue.submit(executor, seq, chain[request], this, request);
    }

    /** Runs {@code request}, whose predecessors finished, on the calling executor thread; frees its successors. */
    void runReady(int request) {
        try {
            if (failure.get() == null && !cancelled) {
                body.accept(request);
            }
        } catch (RuntimeException | Error e) {
            // Recorded, not rethrown: the stage thread rethrows it once the batch's runnable work ended.
            failure.compareAndSet(null, e);
        } finally {
            for (int successor : successors.get(request)) {
                if (remaining[successor].decrementAndGet() == 0) {
                    submit(successor);
                }
            }
            int left = unfinished.decrementAndGet();
            done.countDown();
            if (left == drainingAt) {
                onDraining.run();
            }
            if (done.getCount() == 0) {
                wake();
            }
        }
    }
}
