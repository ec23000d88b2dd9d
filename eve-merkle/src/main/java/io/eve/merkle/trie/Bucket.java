package io.eve.merkle.trie;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The complete contents of one key-hash range of a trie, as shipped by state transfer: every entry whose
 * 64-bit key hash starts with the {@code depth} most significant nibbles of {@code prefix} (the remaining low
 * bits of {@code prefix} are zero). An empty {@code entries} list says that the range is empty. Apply it with
 * {@link CanonicalTrie#replaceRange}.
 *
 * @param prefix the range's key-hash prefix, left-aligned
 * @param depth the prefix length in nibbles, 0 (the whole trie) to 16
 * @param entries the range's entries in canonical order; immutable
 */
public record Bucket<K, V>(long prefix, int depth, List<Map.Entry<K, V>> entries) {
    public Bucket {
        Prefix.check(prefix, depth);
        entries = List.copyOf(Objects.requireNonNull(entries, "entries"));
    }

    @Override
    public String toString() {
        return "Bucket[" + Prefix.hex(prefix) + "/" + depth + ", " + entries.size() + " entries]";
    }
}
