package io.eve.mixer;

import java.util.ArrayList;
import java.util.List;

/** A sequential mixer that remembers what it was given, for tests of decorators. */
public final class StubMixer implements Mixer {
    public final List<BatchKeys> mixed = new ArrayList<>();
    public final List<BatchKeys> rolledBack = new ArrayList<>();

    @Override
    public List<ParallelBatch> mix(BatchKeys batch) {
        mixed.add(batch);
        return new SequentialMixer().mix(batch);
    }

    @Override
    public void onRollback(BatchKeys batch, List<ParallelBatch> partition) {
        rolledBack.add(batch);
    }
}
