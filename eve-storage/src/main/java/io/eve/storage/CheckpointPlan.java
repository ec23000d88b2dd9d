package io.eve.storage;

import io.eve.execution.ExecutionStage;
import io.eve.execution.Token;
import io.eve.merkle.StateDelta;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Decides when to checkpoint and whether incrementally: every {@code every} committed batches, the stage's
 * changes since the last checkpoint; a full one (the changes since the initial state, version 0) first, and
 * whenever the chain has {@code maxLinks} incremental links or they add up to more bytes than the full one
 * (recovery would read more than a full checkpoint).
 *
 * <p>The stage may hold executed batches beyond the committed one (pipelining); the delta always reaches the
 * last executed batch, so such a checkpoint is pending: a rollback below it drops it, and the storage thread
 * installs it only once its batch is appended (committed). One checkpoint is pending at most.
 *
 * <p>Confined to the stage thread.
 */
final class CheckpointPlan {
    /** The chain as it will stand once what was handed to the writer is installed. */
    private record Chain(long seq, boolean hasFull, int links, long linkBytes, long fullBytes) {
        static final Chain EMPTY = new Chain(0, false, 0, 0, 0);

        boolean wantsFull(int maxLinks) {
            return !hasFull || links >= maxLinks || linkBytes >= fullBytes;
        }

        Chain then(long next, boolean full, long bytes) {
            return full
                    ? new Chain(next, true, 0, 0, bytes)
                    : new Chain(next, true, links + 1, linkBytes + bytes, fullBytes);
        }
    }

    private final int every;
    private final int maxLinks;
    private Chain chain = Chain.EMPTY;
    /** The chain before the pending checkpoint, or null when none is pending. */
    private Chain beforePending;

    CheckpointPlan(int every, int maxLinks) {
        this.every = every;
        this.maxLinks = maxLinks;
    }

    void recovered(List<Checkpoints.Entry> entries) {
        Chain rebuilt = Chain.EMPTY;
        for (Checkpoints.Entry entry : entries) {
            rebuilt = rebuilt.then(entry.seq(), entry.full(), entry.size());
        }
        chain = rebuilt;
    }

    Optional<StorageWriter.Command> onStable(ExecutionStage stage, long seq, long view) {
        if (beforePending != null) {
            if (stage.stableSeq() < chain.seq()) {
                return Optional.empty(); // the pending one may still be rolled back: nothing can build on it
            }
            beforePending = null;
        }
        if (seq - chain.seq() < every) {
            return Optional.empty();
        }
        return take(stage, view, false);
    }

    Optional<StorageWriter.Command> onRolledBack(long seq) {
        if (beforePending == null || chain.seq() <= seq) {
            return Optional.empty();
        }
        long dropped = chain.seq();
        chain = beforePending;
        beforePending = null;
        return Optional.of(new StorageWriter.Discard(dropped));
    }

    List<StorageWriter.Command> onTransferred(ExecutionStage stage, long view) {
        List<StorageWriter.Command> commands = new ArrayList<>();
        if (beforePending != null && stage.stableSeq() < chain.seq()) {
            // The transfer replaced the versions the pending checkpoint was taken on.
            onRolledBack(stage.stableSeq()).ifPresent(commands::add);
        }
        beforePending = null;
        take(stage, view, true).ifPresent(commands::add);
        return commands;
    }

    /** @param agreed whether the last executed batch is committed though not yet marked stable (a transfer) */
    private Optional<StorageWriter.Command> take(ExecutionStage stage, long view, boolean agreed) {
        long target = stage.executedSeq();
        if (target <= chain.seq()) {
            return Optional.empty();
        }
        boolean full = chain.wantsFull(maxLinks);
        StateDelta delta = stage.deltaSince(full ? 0 : chain.seq());
        Token token = stage.tokenAt(target);
        boolean committed = agreed || target <= stage.stableSeq();
        Chain next = chain.then(target, full, delta.size());
        if (!committed) {
            beforePending = chain;
        }
        chain = next;
        return Optional.of(new StorageWriter.Checkpoint(view, full, token, delta, committed));
    }
}
