package io.eve.merkle.trie;

import java.util.Arrays;

/**
 * A bucket: the entries of a subtree of at most {@link CanonicalTrie#BUCKET_MAX} entries (any number at depth
 * 16), sorted in canonical order. Changed in place only by the epoch that created it.
 */
final class Leaf<K, V> extends Node<K, V> {
    TrieEntry<K, V>[] entries;
    int count;

    Leaf(long epoch, TrieEntry<K, V>[] entries, int count) {
        super(epoch);
        this.entries = entries;
        this.count = count;
    }

    static <K, V> Leaf<K, V> of(long epoch, TrieEntry<K, V> entry) {
        TrieEntry<K, V>[] entries = TrieEntry.newArray(1);
        entries[0] = entry;
        return new Leaf<>(epoch, entries, 1);
    }

    @Override
    int size() {
        return count;
    }

    @Override
    int copyEntriesTo(TrieEntry<K, V>[] target, int offset) {
        System.arraycopy(entries, 0, target, offset, count);
        return offset + count;
    }

    int find(long keyHash, byte[] encodedKey) {
        return TrieEntry.find(entries, count, keyHash, encodedKey);
    }

    /**
     * This leaf if {@code epoch} created it, otherwise a copy stamped {@code epoch}; either way with room for
     * {@code extra} more entries and with the cached digest dropped.
     */
    Leaf<K, V> writable(long epoch, int extra) {
        int needed = count + extra;
        if (epoch != this.epoch) {
            return new Leaf<>(epoch, Arrays.copyOf(entries, needed), count);
        }
        if (needed > entries.length) {
            // Only collision buckets at depth 16 grow past BUCKET_MAX; grow those geometrically.
            entries = Arrays.copyOf(entries, Math.max(needed, entries.length + (entries.length >> 1)));
        }
        hash = null;
        return this;
    }

    void set(int index, TrieEntry<K, V> entry) {
        entries[index] = entry;
    }

    void insert(int index, TrieEntry<K, V> entry) {
        System.arraycopy(entries, index, entries, index + 1, count - index);
        entries[index] = entry;
        count++;
    }

    void delete(int index) {
        System.arraycopy(entries, index + 1, entries, index, count - index - 1);
        entries[--count] = null;
    }
}
