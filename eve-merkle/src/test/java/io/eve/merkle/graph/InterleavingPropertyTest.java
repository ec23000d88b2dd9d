package io.eve.merkle.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.merkle.Digest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

class InterleavingPropertyTest {
    private static ExecutorService pool;

    @BeforeContainer
    static void startPool() {
        pool = Executors.newFixedThreadPool(4);
    }

    @AfterContainer
    static void stopPool() {
        pool.shutdownNow();
    }

    @Provide
    Arbitrary<List<List<BankOps.Op>>> histories() {
        return BankOps.histories();
    }

    @Property(tries = 60)
    void equalHistoriesGiveEqualRootsWhateverTheInterleaving(
            @ForAll("histories") List<List<BankOps.Op>> history, @ForAll long shuffleSeed) throws Exception {
        ObjectGraphState sequential = BankOps.newState(true, 3);
        ObjectGraphState concurrent = BankOps.newState(false, 3);
        Random random = new Random(shuffleSeed);
        long seq = 1;
        for (List<BankOps.Op> batch : history) {
            List<BankOps.Op> shuffled = new ArrayList<>(batch);
            Collections.shuffle(shuffled, random);
            BankOps.runBatch(sequential, batch, null);
            BankOps.runBatch(concurrent, shuffled, pool);
            assertThat(concurrent.seal(seq)).isEqualTo(sequential.seal(seq));
            seq++;
        }
    }

    @Property(tries = 60)
    void differentLogicalStateGivesDifferentRoots(
            @ForAll("histories") List<List<BankOps.Op>> history, @ForAll long shuffleSeed) throws Exception {
        ObjectGraphState honest = BankOps.newState(false, 3);
        ObjectGraphState diverged = BankOps.newState(true, 3);
        long seq = 1;
        for (List<BankOps.Op> batch : history) {
            BankOps.runBatch(honest, batch, null);
            BankOps.runBatch(diverged, batch, pool);
            honest.seal(seq);
            diverged.seal(seq);
            seq++;
        }
        Bank bank = diverged.root("bank", Bank.class);
        int slot = Math.floorMod(shuffleSeed, BankOps.SLOTS);
        diverged.modify(bank);
        bank.counters[slot % bank.counters.length]++;
        assertThat(diverged.seal(seq)).isNotEqualTo(honest.seal(seq));
    }

    @Property(tries = 60)
    void rollbackRestoresEveryPipelinedVersion(@ForAll("histories") List<List<BankOps.Op>> history, @ForAll long seed)
            throws Exception {
        ObjectGraphState state = BankOps.newState(true, 2);
        ObjectGraphState reference = BankOps.newState(true, 2);
        List<Digest> roots = new ArrayList<>();
        roots.add(state.rootAt(0));
        long seq = 1;
        for (List<BankOps.Op> batch : history) {
            BankOps.runBatch(state, batch, pool);
            roots.add(state.seal(seq++));
        }
        int target = Math.floorMod(seed, roots.size());
        BankOps.runBatch(state, history.get(0), pool);
        state.rollbackTo(target);
        for (int i = 0; i < target; i++) {
            BankOps.runBatch(reference, history.get(i), null);
            reference.seal(i + 1);
        }
        assertThat(state.rootAt(target)).isEqualTo(roots.get(target)).isEqualTo(reference.rootAt(target));
        for (int i = target; i < history.size(); i++) {
            BankOps.runBatch(state, history.get(i), pool);
            assertThat(state.seal(i + 1)).as("re-executing batch %d", i + 1).isEqualTo(roots.get(i + 1));
        }
    }
}
