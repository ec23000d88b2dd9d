package io.eve.storage;

import io.eve.batch.Batch;
import io.eve.execution.Token;
import java.util.Objects;

/**
 * One committed batch as the log keeps it: enough to execute it again and check that the result is the
 * one committed.
 *
 * @param view the view it committed in
 * @param sequential whether it ran one request at a time (after a rollback)
 * @param batch the batch
 * @param token the token it committed with (state root and reply digest, chained to the one before)
 */
public record LoggedBatch(long view, boolean sequential, Batch batch, Token token) {
    public LoggedBatch {
        Objects.requireNonNull(batch, "batch");
        Objects.requireNonNull(token, "token");
        if (token.seq() != batch.seq()) {
            throw new IllegalArgumentException(
                    "the token of batch " + token.seq() + " is not batch " + batch.seq() + "'s");
        }
    }

    public long seq() {
        return batch.seq();
    }
}
