package io.eve.merkle.tree;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.merkle.Digest;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ForkJoinPool;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class IdTreeTest {

    private static byte[] digestFor(long id, int version) {
        byte[] digest = new byte[Digest.LENGTH];
        new Random(id * 31 + version).nextBytes(digest);
        return digest;
    }

    @Property(tries = 100)
    void incrementalRootEqualsFullRehash(@ForAll long seed, @ForAll @IntRange(min = 1, max = 3000) int writes) {
        Random random = new Random(seed);
        IdTree<String> tree = new IdTree<>(ForkJoinPool.commonPool(), 64);
        int idRange = 1 + random.nextInt(5000);
        long epoch = 0;
        for (int i = 0; i < writes; i++) {
            if (random.nextInt(50) == 0) {
                tree.rootDigest();
                epoch++;
            }
            long id = random.nextInt(idRange);
            if (random.nextInt(5) == 0) {
                tree.clear(id, epoch);
            } else {
                tree.set(id, "v" + id, digestFor(id, i), epoch);
            }
        }
        assertThat(tree.rootDigest()).isEqualTo(tree.recomputeFromScratch());
    }

    @Property(tries = 100)
    void shouldWriteManySlotsAtOnceAsItWritesThemOneByOne(
            @ForAll long seed, @ForAll @IntRange(min = 0, max = 600) int perEpoch) {
        Random random = new Random(seed);
        IdTree<String> oneByOne = new IdTree<>(null, 1);
        IdTree<String> atOnce = new IdTree<>(null, 1);
        int idRange = 1 + random.nextInt(20_000);
        for (long epoch = 1; epoch <= 4; epoch++) {
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < perEpoch; i++) {
                ids.add((long) random.nextInt(idRange));
            }
            if (random.nextBoolean()) {
                ids.sort(null); // the sealer's order; unsorted and repeated ids must work too
            }
            byte[] digests = new byte[ids.size() * Digest.LENGTH];
            List<String> values = new ArrayList<>();
            for (int i = 0; i < ids.size(); i++) {
                System.arraycopy(digestFor(ids.get(i), (int) epoch), 0, digests, i * Digest.LENGTH, Digest.LENGTH);
                values.add(ids.get(i) + "@" + epoch);
                oneByOne.set(ids.get(i), values.get(i), digests, i * Digest.LENGTH, epoch);
            }
            atOnce.setAll(values, ids.stream().mapToLong(Long::longValue).toArray(), digests, epoch);

            assertThat(atOnce.snapshot().rootDigest())
                    .isEqualTo(oneByOne.snapshot().rootDigest());
            assertThat(atOnce.height()).isEqualTo(oneByOne.height());
            List<String> changed = new ArrayList<>();
            atOnce.forEachChangedSince(epoch - 1, (id, value, lastModified) -> changed.add(id + "=" + value));
            List<String> expected = new ArrayList<>();
            oneByOne.forEachChangedSince(epoch - 1, (id, value, lastModified) -> expected.add(id + "=" + value));
            assertThat(changed).isEqualTo(expected);
        }
    }

    @Test
    void shouldKeepSnapshotsIntactAfterLaterWrites() {
        IdTree<String> tree = new IdTree<>(null, 1);
        for (long id = 0; id < 300; id++) {
            tree.set(id, "a" + id, digestFor(id, 0), 0);
        }
        IdTree.Snapshot zero = tree.snapshot();
        for (long id = 0; id < 300; id += 7) {
            tree.set(id, "b" + id, digestFor(id, 1), 1);
        }
        tree.set(5000, "far", digestFor(5000, 1), 1);
        Digest one = tree.rootDigest();
        assertThat(one).isNotEqualTo(zero.rootDigest());
        tree.restore(zero);
        assertThat(tree.get(7)).isEqualTo("a7");
        assertThat(tree.get(5000)).isNull();
        assertThat(tree.recomputeFromScratch()).isEqualTo(zero.rootDigest());
        tree.set(7, "b7", digestFor(7, 1), 1);
        assertThat(tree.get(7)).isEqualTo("b7");
    }

    @Test
    void shouldHashEmptySlotsAndEmptiedSlotsAlike() {
        IdTree<String> emptied = new IdTree<>(null, 1);
        emptied.set(3, "x", digestFor(3, 0), 0);
        emptied.set(20, "y", digestFor(20, 0), 0);
        emptied.rootDigest();
        emptied.clear(20, 1);
        IdTree<String> never = new IdTree<>(null, 1);
        never.set(3, "x", digestFor(3, 0), 0);
        never.ensureHeight(2, 0);
        assertThat(emptied.rootDigest()).isEqualTo(never.rootDigest());
    }

    @Test
    void shouldVisitOnlyWhatChangedSinceAnEpoch() {
        IdTree<String> tree = new IdTree<>(null, 1);
        for (long id = 0; id < 4096; id++) {
            tree.set(id, "a", digestFor(id, 0), 0);
        }
        tree.rootDigest();
        tree.set(17, "b", digestFor(17, 1), 1);
        tree.clear(4000, 2);
        tree.set(9000, "c", digestFor(9000, 2), 2);
        TreeMap<Long, String> changed = new TreeMap<>();
        tree.forEachChangedSince(0, (id, value, lastModified) -> changed.put(id, value));
        assertThat(changed.keySet()).containsExactly(17L, 4000L, 9000L);
        assertThat(changed.get(4000L)).isNull();
        List<Long> sinceOne = new ArrayList<>();
        tree.forEachChangedSince(1, (id, value, lastModified) -> sinceOne.add(id));
        assertThat(sinceOne).containsExactly(4000L, 9000L);
    }

    @Test
    void shouldHashInParallelToTheSameRoot() {
        IdTree<String> parallel = new IdTree<>(new ForkJoinPool(4), 10);
        IdTree<String> sequential = new IdTree<>(null, 1);
        for (long id = 0; id < 20_000; id += 3) {
            parallel.set(id, "v", digestFor(id, 0), 0);
            sequential.set(id, "v", digestFor(id, 0), 0);
        }
        assertThat(parallel.rootDigest()).isEqualTo(sequential.rootDigest());
    }
}
