package io.eve.rdma.disni;

import io.eve.rdma.FabricException;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/**
 * The futures of posted writes, by work-request id (increasing). A signalled completion completes its write
 * and, by the ordering of a reliable connection, every earlier one; an error fails them all and every later
 * write. Thread-safe: the poster and DiSNI's completion thread share it.
 */
final class PendingWrites {
    private record Posted(long wrId, CompletableFuture<Void> done) {}

    private final ArrayDeque<Posted> posted = new ArrayDeque<>();
    private FabricException failure;

    /** Registers a write about to be posted; fails it at once if the path already broke. */
    synchronized CompletableFuture<Void> add(long wrId) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (failure != null) {
            done.completeExceptionally(failure);
        } else {
            posted.add(new Posted(wrId, done));
        }
        return done;
    }

    /** Work request {@code wrId} completed successfully: so did everything posted before it. */
    synchronized void completeThrough(long wrId) {
        while (!posted.isEmpty() && posted.peek().wrId() <= wrId) {
            posted.poll().done().complete(null);
        }
    }

    /** The path broke: every outstanding and later write fails with {@code cause}. */
    synchronized void failAll(FabricException cause) {
        if (failure == null) {
            failure = cause;
        }
        while (!posted.isEmpty()) {
            posted.poll().done().completeExceptionally(cause);
        }
    }

    synchronized FabricException failure() {
        return failure;
    }

    synchronized int outstanding() {
        return posted.size();
    }
}
