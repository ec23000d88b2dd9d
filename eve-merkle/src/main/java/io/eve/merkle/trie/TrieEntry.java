package io.eve.merkle.trie;

import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

/**
 * One immutable entry: the key, its canonical bytes and hash, the value, and the epoch of the write that
 * set it (so a transfer can leave out values the receiver already has). Entries are shared between
 * versions of a bucket and handed out as-is by iteration, so iterating allocates nothing per entry.
 */
final class TrieEntry<K, V> implements Map.Entry<K, V> {
    final long keyHash;
    final byte[] encodedKey;
    private final K key;
    private final V value;
    final long epoch;

    TrieEntry(long keyHash, byte[] encodedKey, K key, V value, long epoch) {
        this.keyHash = keyHash;
        this.encodedKey = encodedKey;
        this.key = key;
        this.value = value;
        this.epoch = epoch;
    }

    @SuppressWarnings("unchecked")
    static <K, V> TrieEntry<K, V>[] newArray(int length) {
        return (TrieEntry<K, V>[]) new TrieEntry<?, ?>[length];
    }

    /** Canonical order: key hash as unsigned, then the key bytes as unsigned, lexicographically. */
    static int compare(long keyHash, byte[] encodedKey, TrieEntry<?, ?> other) {
        int byHash = Long.compareUnsigned(keyHash, other.keyHash);
        return byHash != 0 ? byHash : Arrays.compareUnsigned(encodedKey, other.encodedKey);
    }

    static int compare(TrieEntry<?, ?> left, TrieEntry<?, ?> right) {
        return compare(left.keyHash, left.encodedKey, right);
    }

    /** Binary search in {@code entries[0, count)}; the index, or {@code -(insertion point) - 1}. */
    static int find(TrieEntry<?, ?>[] entries, int count, long keyHash, byte[] encodedKey) {
        int low = 0;
        int high = count - 1;
        while (low <= high) {
            int middle = (low + high) >>> 1;
            int order = compare(keyHash, encodedKey, entries[middle]);
            if (order > 0) {
                low = middle + 1;
            } else if (order < 0) {
                high = middle - 1;
            } else {
                return middle;
            }
        }
        return -(low + 1);
    }

    @Override
    public K getKey() {
        return key;
    }

    @Override
    public V getValue() {
        return value;
    }

    @Override
    public V setValue(V newValue) {
        throw new UnsupportedOperationException("trie entries are immutable; use CanonicalTrie.put");
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Map.Entry<?, ?> that
                && Objects.equals(key, that.getKey())
                && Objects.equals(value, that.getValue());
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(key) ^ Objects.hashCode(value);
    }

    @Override
    public String toString() {
        return key + "=" + value;
    }
}
