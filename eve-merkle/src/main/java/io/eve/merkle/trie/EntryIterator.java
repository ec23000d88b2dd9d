package io.eve.merkle.trie;

import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * Walks the entries in canonical order with a fixed-size stack of branches; it allocates nothing after
 * construction. Fails fast if the trie is updated or restored meanwhile.
 */
final class EntryIterator<K, V> implements Iterator<Map.Entry<K, V>> {
    private final CanonicalTrie<K, V> trie;
    private final int expectedModCount;
    private final Branch<K, V>[] branches;
    private final int[] nextSlots = new int[Prefix.MAX_DEPTH];
    private int top = -1;
    private Leaf<K, V> leaf;
    private int index;

    @SuppressWarnings("unchecked")
    EntryIterator(CanonicalTrie<K, V> trie, Node<K, V> root, int modCount) {
        this.trie = trie;
        this.expectedModCount = modCount;
        this.branches = (Branch<K, V>[]) new Branch<?, ?>[Prefix.MAX_DEPTH];
        enter(root);
    }

    @Override
    public boolean hasNext() {
        return leaf != null;
    }

    @Override
    public Map.Entry<K, V> next() {
        if (trie.modCount() != expectedModCount) {
            throw new ConcurrentModificationException("the trie changed during iteration");
        }
        if (leaf == null) {
            throw new NoSuchElementException();
        }
        TrieEntry<K, V> entry = leaf.entries[index++];
        if (index == leaf.count) {
            leaf = null;
            advance();
        }
        return entry;
    }

    private void enter(Node<K, V> node) {
        if (node instanceof Branch<K, V> branch) {
            branches[++top] = branch;
            nextSlots[top] = 0;
            advance();
        } else if (node != null) {
            leaf = (Leaf<K, V>) node;
            index = 0;
        }
    }

    /** Moves to the next non-empty slot after the current position and descends to its first bucket. */
    private void advance() {
        while (top >= 0) {
            Branch<K, V> branch = branches[top];
            int slot = nextSlots[top];
            while (slot < Branch.SLOTS && branch.children[slot] == null) {
                slot++;
            }
            if (slot == Branch.SLOTS) {
                branches[top--] = null;
                continue;
            }
            nextSlots[top] = slot + 1;
            Node<K, V> child = branch.children[slot];
            if (child instanceof Leaf<K, V> bucket) {
                leaf = bucket;
                index = 0;
                return;
            }
            branches[++top] = (Branch<K, V>) child;
            nextSlots[top] = 0;
        }
    }
}
