package io.eve.execution;

import io.eve.Reply;
import io.eve.batch.Batch;
import java.util.List;

/**
 * The outcome of executing one batch at one replica: the token for verification and the replies, held
 * back until the batch commits.
 *
 * @param batch the batch
 * @param token the replica's token for it
 * @param replies the replies, in batch order
 * @param parallelBatches how many parallel batches the mixer made
 * @param sequential whether the batch ran one request at a time (after a rollback)
 */
public record Executed(Batch batch, Token token, List<Reply> replies, int parallelBatches, boolean sequential) {
    public Executed {
        replies = List.copyOf(replies);
    }

    public long seq() {
        return batch.seq();
    }
}
