package io.eve.merkle.trie;

/**
 * An immutable version of a {@link CanonicalTrie}, taken by {@link CanonicalTrie#snapshot()} in O(1) and
 * reinstated by {@link CanonicalTrie#restore(TrieSnapshot)}. It shares nodes with the trie that made it, whose
 * update paths never write them; it can only be restored into that trie.
 */
public final class TrieSnapshot<K, V> {
    final CanonicalTrie<K, V> owner;
    final Node<K, V> root;
    final long rootEpoch;
    private final long epoch;

    TrieSnapshot(CanonicalTrie<K, V> owner, Node<K, V> root, long rootEpoch, long epoch) {
        this.owner = owner;
        this.root = root;
        this.rootEpoch = rootEpoch;
        this.epoch = epoch;
    }

    /** The last epoch this version contains; after restoring it, updates must use a greater epoch. */
    public long epoch() {
        return epoch;
    }

    public int size() {
        return Node.sizeOf(root);
    }

    @Override
    public String toString() {
        return "TrieSnapshot[epoch " + epoch + ", " + size() + " entries]";
    }
}
