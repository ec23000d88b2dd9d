package io.eve.merkle.trie;

/**
 * A trie node: a {@link Leaf} bucket or a {@link Branch}.
 *
 * <p>{@link #epoch} is the epoch that created the node and also its last-modified epoch: the node changes in
 * place only during that epoch, and any later change works on a copy. {@link #hash} caches the node's digest
 * and is {@code null} while the node is new or changed since it was last hashed.
 */
abstract sealed class Node<K, V> permits Leaf, Branch {
    final long epoch;
    byte[] hash;

    Node(long epoch) {
        this.epoch = epoch;
    }

    /** Entries in this subtree. */
    abstract int size();

    /** Appends this subtree's entries, in canonical order, at {@code target[offset]}; returns the new offset. */
    abstract int copyEntriesTo(TrieEntry<K, V>[] target, int offset);

    static int sizeOf(Node<?, ?> node) {
        return node == null ? 0 : node.size();
    }
}
