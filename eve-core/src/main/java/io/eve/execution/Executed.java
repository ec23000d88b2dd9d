package io.eve.execution;

import io.eve.Reply;
import io.eve.batch.Batch;
import io.eve.merkle.ObjectDigest;
import java.util.List;
import java.util.Optional;

/**
 * The outcome of executing one batch at one replica: the token for verification and the replies, held
 * back until the batch commits.
 *
 * @param batch the batch
 * @param token the replica's token for it
 * @param replies the replies, in batch order
 * @param parallelBatches how many parallel batches the mixer made
 * @param sequential whether the batch ran one request at a time (after a rollback)
 * @param objectDigests for a batch run sequentially, the objects it changed with their digests, if the state
 *     keeps them (docs/state.md, "Diagnosing a batch that still differs"); empty otherwise
 */
public record Executed(
        Batch batch,
        Token token,
        List<Reply> replies,
        int parallelBatches,
        boolean sequential,
        Optional<List<ObjectDigest>> objectDigests) {
    public Executed {
        replies = List.copyOf(replies);
        objectDigests = objectDigests.map(List::copyOf);
    }

    /** An outcome without object digests. */
    public Executed(Batch batch, Token token, List<Reply> replies, int parallelBatches, boolean sequential) {
        this(batch, token, replies, parallelBatches, sequential, Optional.empty());
    }

    public long seq() {
        return batch.seq();
    }
}
