package io.eve.merkle.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.merkle.ApplyResult;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

class CollectionPropertyTest {
    private static ExecutorService pool;

    /** One write to the directory's collections, on key {@code key}. */
    record Write(int key, int kind, long value) {
        void run(Directory dir) {
            switch (kind) {
                case 0 -> dir.entries.put("k" + key, value);
                case 1 -> dir.entries.remove("k" + key);
                case 2 -> dir.entries.put("k" + key, new Account("a" + key, value));
                case 3 -> dir.members.add((long) key);
                default -> dir.members.remove((long) key);
            }
        }
    }

    @BeforeContainer
    static void startPool() {
        pool = Executors.newFixedThreadPool(4);
    }

    @AfterContainer
    static void stopPool() {
        pool.shutdownNow();
    }

    @Provide
    Arbitrary<List<List<Write>>> histories() {
        Arbitrary<Write> write = Combinators.combine(
                        Arbitraries.integers().between(0, 300),
                        Arbitraries.integers().between(0, 4),
                        Arbitraries.longs().between(-5, 5))
                .as(Write::new);
        return write.list()
                .ofMaxSize(60)
                .map(CollectionPropertyTest::disjoint)
                .list()
                .ofMinSize(1)
                .ofMaxSize(8);
    }

    static List<Write> disjoint(List<Write> writes) {
        BitSet used = new BitSet();
        List<Write> kept = new ArrayList<>();
        for (Write write : writes) {
            if (!used.get(write.key())) {
                used.set(write.key());
                kept.add(write);
            }
        }
        return kept;
    }

    static void run(ObjectGraphState state, List<Write> batch, boolean concurrently) throws Exception {
        Directory dir = state.root("dir", Directory.class);
        if (!concurrently) {
            batch.forEach(write -> write.run(dir));
            return;
        }
        List<Future<?>> futures = new ArrayList<>();
        for (Write write : batch) {
            futures.add(pool.submit(() -> write.run(dir)));
        }
        for (Future<?> future : futures) {
            future.get();
        }
    }

    @Property(tries = 60)
    void collectionsGiveEqualRootsWhateverTheInterleavingAndTransferExactly(
            @ForAll("histories") List<List<Write>> history, @ForAll long seed) throws Exception {
        ObjectGraphState sequential = ReplicatedCollectionsTest.newState();
        ObjectGraphState concurrent = ReplicatedCollectionsTest.newState();
        ObjectGraphState lagging = ReplicatedCollectionsTest.newState();
        int base = Math.floorMod(seed, history.size() + 1);
        Random random = new Random(seed);
        for (int i = 0; i < history.size(); i++) {
            List<Write> shuffled = new ArrayList<>(history.get(i));
            Collections.shuffle(shuffled, random);
            run(sequential, history.get(i), false);
            run(concurrent, shuffled, true);
            assertThat(concurrent.seal(i + 1)).isEqualTo(sequential.seal(i + 1));
            if (i < base) {
                run(lagging, history.get(i), false);
                lagging.seal(i + 1);
            }
        }
        ApplyResult result =
                lagging.apply(sequential.deltaSince(base), history.size(), sequential.rootAt(history.size()));
        assertThat(result.applied()).as(result.reason()).isTrue();
    }
}
