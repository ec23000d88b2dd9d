package io.eve.rdma.verbs;

import io.eve.rdma.FabricException;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/**
 * The work requests one queue pair posted and no completion has covered yet, with their futures, in post
 * order. A successful completion completes its request and, by the ordering of a reliable connection, every
 * earlier one; a failed one fails them all and every later request. Completions whose id another queue pair
 * handed out (see {@link WorkRequestIds}) are counted and otherwise ignored.
 *
 * <p>Thread-safe: the posting thread and the completion thread share it.
 */
public final class PendingWrites {
    /** A request about to be posted: its id and the future its completion settles. */
    public record Posted(long wrId, CompletableFuture<Void> done) {}

    private final WorkRequestIds ids;
    private final ArrayDeque<Posted> posted = new ArrayDeque<>();
    private FabricException failure;
    private long stale;

    /** The requests of path {@code path} (its number, unique among the fabric's recent paths). */
    public PendingWrites(long path) {
        this.ids = new WorkRequestIds(path);
    }

    /** Takes the next id for a request about to be posted; its future has failed already if the path broke. */
    public synchronized Posted add() {
        Posted next = new Posted(ids.next(), new CompletableFuture<>());
        if (failure != null) {
            next.done().completeExceptionally(failure);
        } else {
            posted.add(next);
        }
        return next;
    }

    /**
     * A completion for {@code wrId}: {@code error} is {@code null} for success (then it and every earlier
     * request completed), else the path broke.
     *
     * @return false if the completion belongs to another queue pair (stale; nothing changed)
     */
    public synchronized boolean onCompletion(long wrId, FabricException error) {
        if (!ids.owns(wrId)) {
            stale++;
            return false;
        }
        if (error != null) {
            failAll(error);
        } else {
            while (!posted.isEmpty() && posted.peek().wrId() <= wrId) {
                posted.poll().done().complete(null);
            }
        }
        return true;
    }

    /** The path broke (a failed post, or it was closed): every outstanding and later request fails. */
    public synchronized void failAll(FabricException cause) {
        if (failure == null) {
            failure = cause;
        }
        while (!posted.isEmpty()) {
            posted.poll().done().completeExceptionally(cause);
        }
    }

    public synchronized FabricException failure() {
        return failure;
    }

    public synchronized int outstanding() {
        return posted.size();
    }

    /** Completions that named another queue pair's request and were ignored. */
    public synchronized long staleCompletions() {
        return stale;
    }

    /** This queue pair's path number (the upper bits of its work-request ids). */
    public long path() {
        return ids.path();
    }
}
