package io.eve.mixer;

import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The whole batch in one parallel batch, whatever the requests touch: the "group all" mixer of Eve Fig. 9,
 * which leaves all protection against interference to verification and rollback.
 *
 * <p>Stateless and thread-safe.
 */
public final class GroupAllMixer implements Mixer {
    @Override
    public List<ParallelBatch> mix(BatchKeys batch) {
        if (batch.size() == 0) {
            return List.of();
        }
        List<Integer> all = IntStream.range(0, batch.size()).boxed().collect(Collectors.toList());
        return List.of(new ParallelBatch(all));
    }

    @Override
    public String toString() {
        return "GroupAllMixer";
    }
}
