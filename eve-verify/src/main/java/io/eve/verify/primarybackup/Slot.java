package io.eve.verify.primarybackup;

import io.eve.batch.Batch;
import io.eve.execution.Executed;
import io.eve.execution.Token;
import java.util.Optional;

/**
 * A batch the primary dispatched, with what it knows of its verification so far: its own execution, the
 * backup's token, and whether it commits on this replica's execution alone (with the fence's grant).
 */
final class Slot {
    final Batch batch;
    final boolean sequential;
    boolean solo;
    Optional<Executed> mine = Optional.empty();
    Optional<Token> peerToken = Optional.empty();
    /** The stage runs this batch's last requests (a hint: it may take the next batch now). */
    boolean draining;

    Slot(Batch batch, boolean sequential, boolean solo) {
        this.batch = batch;
        this.sequential = sequential;
        this.solo = solo;
    }

    long seq() {
        return batch.seq();
    }

    boolean executed() {
        return mine.isPresent();
    }

    /** Whether the backup's token matched this replica's. */
    boolean verified() {
        return mine.isPresent() && peerToken.isPresent() && mine.get().token().matches(peerToken.get());
    }
}
