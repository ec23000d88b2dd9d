package io.eve.merkle.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.merkle.Digest;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Review: rolling back over several pipelined versions (with collection of garbage, id reuse and an unsealed batch
 * in progress) and replaying the same batches reproduces every root, with the debug rehash on.
 */
class ReviewRollbackPropertyTest {

    @Provide
    Arbitrary<List<List<BankOps.Op>>> histories() {
        return BankOps.histories();
    }

    @Property(tries = 60)
    void rollbackOverPipelinedVersionsThenReplayReproducesEveryRoot(
            @ForAll("histories") List<List<BankOps.Op>> history,
            @ForAll("histories") List<List<BankOps.Op>> pending,
            @ForAll @IntRange(min = 0, max = 12) int cut,
            @ForAll @IntRange(min = 1, max = 3) int gcInterval)
            throws Exception {
        int target = Math.min(cut, history.size());
        ObjectGraphState state = BankOps.newState(true, gcInterval);
        List<Digest> roots = new ArrayList<>();
        roots.add(state.rootAt(0));
        for (int i = 0; i < history.size(); i++) {
            BankOps.runBatch(state, history.get(i), null);
            roots.add(state.seal(i + 1));
        }
        BankOps.runBatch(state, pending.get(0), null);
        state.rollbackTo(target);
        assertThat(state.rootAt(target)).isEqualTo(roots.get(target));
        for (int i = target; i < history.size(); i++) {
            BankOps.runBatch(state, history.get(i), null);
            assertThat(state.seal(i + 1)).as("replayed batch %d", i + 1).isEqualTo(roots.get(i + 1));
        }
    }
}
