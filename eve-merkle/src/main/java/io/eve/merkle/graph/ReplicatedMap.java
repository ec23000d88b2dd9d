package io.eve.merkle.graph;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * A map that is replicated state without any {@code modify} call: its digest and iteration order depend
 * only on its contents, never on the order of inserts or on thread interleaving (Eve §5.2.2), and it is
 * rolled back and transferred with the rest of the {@link ObjectGraphState}. Reachable from a root or a
 * state object like any other.
 *
 * <p>Keys are {@code String}, {@code Integer} or {@code Long}. Values are {@code Boolean},
 * {@code Integer}, {@code Long}, {@code Double}, {@code String}, {@code byte[]} (copied on the way in and
 * out) or a {@link StateObject}. Iteration follows the canonical order of the keys' hashes, the same on
 * every replica.
 *
 * <p>Thread-safe: requests of one parallel batch may use it concurrently.
 *
 * @param <K> keys
 * @param <V> values
 */
@SuppressWarnings("unchecked")
public final class ReplicatedMap<K, V> extends TrieCollection {
    static final String NAME = "eve.Map";

    public ReplicatedMap() {}

    public V get(K key) {
        return (V) getEntry(key);
    }

    public boolean containsKey(K key) {
        return hasEntry(key);
    }

    /** Sets {@code key} to {@code value}; returns the previous value or {@code null}. */
    public V put(K key, V value) {
        return (V) putEntry(key, value);
    }

    /** Removes {@code key}; returns its value or {@code null}. */
    public V remove(K key) {
        return (V) removeEntry(key);
    }

    /** Calls {@code action} for every entry, in canonical order, on a copy of the entries. */
    public void forEach(BiConsumer<? super K, ? super V> action) {
        for (Map.Entry<Object, Object> entry : entries()) {
            action.accept((K) entry.getKey(), (V) entry.getValue());
        }
    }

    /** The keys in canonical order. */
    public List<K> keys() {
        List<K> keys = new ArrayList<>();
        forEach((key, value) -> keys.add(key));
        return keys;
    }

    @Override
    public String toString() {
        return "ReplicatedMap[" + size() + " entries]";
    }
}
