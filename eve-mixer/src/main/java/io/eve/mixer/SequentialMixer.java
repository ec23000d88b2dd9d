package io.eve.mixer;

import java.util.ArrayList;
import java.util.List;

/**
 * One request per parallel batch, in batch order: plain sequential execution. The execution stage uses it
 * for the batch after a rollback (Eve §4.2), when parallel execution has just failed to converge.
 *
 * <p>Stateless and thread-safe.
 */
public final class SequentialMixer implements Mixer {
    @Override
    public List<ParallelBatch> mix(BatchKeys batch) {
        List<ParallelBatch> partition = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            partition.add(ParallelBatch.of(i));
        }
        return List.copyOf(partition);
    }

    @Override
    public String toString() {
        return "SequentialMixer";
    }
}
