package io.eve.execution;

import java.util.concurrent.Executor;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The requests of an execution stage that may run now, best first, shared by the batch in progress and
 * the one started early (batch overlap). Each ready request is handed to the executor as one task, but
 * the task runs whichever ready request comes first when a thread picks it up, not the one that made it:
 *
 * <ol>
 *   <li>the earlier batch first, so that the batch in progress is never queued behind the next one (it
 *       has to finish before it can be sealed, verified and answered);
 *   <li>then the request with the longest chain of requests waiting behind it in its batch, so that a
 *       batch's conflict chains start early instead of ending it on one thread while the others idle;
 *   <li>then the order in which they became ready.
 * </ol>
 *
 * <p>A first-in first-out executor queue did neither: a request freed by its predecessor late in a batch
 * went behind every request already queued, including the next batch's. Thread-safe.
 */
final class ReadyQueue {
    private final PriorityBlockingQueue<Ready> ready = new PriorityBlockingQueue<>();
    private final AtomicLong arrivals = new AtomicLong();
    /** The one task body every submission hands the executor. */
    private final Runnable runBest = this::runBest;

    /** A request that may run: its batch, the length of the chain behind it, and when it became ready. */
    private record Ready(long seq, int chain, long arrival, DependencyRun run, int request)
            implements Comparable<Ready> {
        @Override
        public int compareTo(Ready other) {
            if (seq != other.seq) {
                return Long.compare(seq, other.seq);
            }
            if (chain != other.chain) {
                return Integer.compare(other.chain, chain);
            }
            return Long.compare(arrival, other.arrival);
        }
    }

    /**
     * Adds {@code request} of {@code run} (batch {@code seq}, {@code chain} requests after it at most) and
     * hands the executor one task, which runs the best request ready by then.
     */
    void submit(Executor executor, long seq, int chain, DependencyRun run, int request) {
        Ready entry = new Ready(seq, chain, arrivals.getAndIncrement(), run, request);
        ready.add(entry);
        try {
            executor.execute(runBest);
        } catch (RejectedExecutionException e) {
            ready.remove(entry);
            throw e;
        }
    }

    /** Ready requests not yet picked up by a thread (for tests). */
    int size() {
        return ready.size();
    }

    private void runBest() {
        // Every task is preceded by exactly one addition, so there is always an entry for it.
        Ready best = ready.poll();
        if (best != null) {
            best.run().runReady(best.request());
        }
    }
}
