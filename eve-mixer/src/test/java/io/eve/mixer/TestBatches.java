package io.eve.mixer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** Batches for tests: literal ones for examples and jqwik generators for properties. */
public final class TestBatches {
    private TestBatches() {}

    /** Batch seq 1, seed 42, with {@code requests} in order. */
    public static BatchKeys batch(ConflictKeys... requests) {
        return batch(1, requests);
    }

    public static BatchKeys batch(long seq, ConflictKeys... requests) {
        return new BatchKeys(seq, 42, Arrays.asList(requests));
    }

    /**
     * A batch with many conflicts and seed {@code seed}: request {@code i} writes key {@code i mod keys} and
     * reads key {@code (3i + 1) mod keys}.
     */
    public static BatchKeys crowded(long seed, int requests, int keys) {
        List<ConflictKeys> all = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            all.add(ConflictKeys.writing("k" + i % keys).andReading("k" + (3 * i + 1) % keys));
        }
        return new BatchKeys(1, seed, all);
    }

    /** Batches of up to 40 requests over 1 to 12 string keys, so that hot keys and empty keys both occur. */
    public static Arbitrary<BatchKeys> batches() {
        return batches(40);
    }

    public static Arbitrary<BatchKeys> batches(int maxRequests) {
        return Arbitraries.integers().between(1, 12).flatMap(universe -> batches(maxRequests, universe));
    }

    private static Arbitrary<BatchKeys> batches(int maxRequests, int universe) {
        Arbitrary<ConflictKeys> request =
                Combinators.combine(keySet(universe), keySet(universe)).as(ConflictKeys::of);
        return Combinators.combine(
                        Arbitraries.longs().between(0, 1_000_000),
                        Arbitraries.longs(),
                        request.list().ofMaxSize(maxRequests))
                .as(BatchKeys::new);
    }

    private static Arbitrary<Set<String>> keySet(int universe) {
        return Arbitraries.integers()
                .between(0, universe - 1)
                .map(i -> "k" + i)
                .set()
                .ofMaxSize(3);
    }

    /**
     * The same batch with every key wrapped in a {@link SaltedKey}: equality between keys is unchanged, but
     * every hash code, and so every hash table's iteration order, is different for each salt.
     */
    public static BatchKeys salted(BatchKeys batch, int salt) {
        List<ConflictKeys> requests = new ArrayList<>();
        for (ConflictKeys keys : batch.requests()) {
            requests.add(ConflictKeys.of(salt(keys.reads(), salt), salt(keys.writes(), salt)));
        }
        return batch.withRequests(requests);
    }

    /** The same batch with key sets built as reverse-ordered tree sets instead of hash-ordered sets. */
    public static BatchKeys reinserted(BatchKeys batch) {
        List<ConflictKeys> requests = new ArrayList<>();
        for (ConflictKeys keys : batch.requests()) {
            requests.add(ConflictKeys.of(reversed(keys.reads()), reversed(keys.writes())));
        }
        return batch.withRequests(requests);
    }

    private static Set<Object> salt(Set<?> keys, int salt) {
        Set<Object> salted = new LinkedHashSet<>();
        for (Object key : keys) {
            salted.add(new SaltedKey(key.toString(), salt));
        }
        return salted;
    }

    private static Set<String> reversed(Set<?> keys) {
        Set<String> tree = new TreeSet<>(Comparator.<String>reverseOrder());
        for (Object key : keys) {
            tree.add(key.toString());
        }
        return tree;
    }

    /** A key whose hash code depends on a salt; keys of one batch share the salt. */
    public record SaltedKey(String name, int salt) {
        @Override
        public int hashCode() {
            return (name.hashCode() ^ salt) * 0x9e3779b1;
        }
    }
}
