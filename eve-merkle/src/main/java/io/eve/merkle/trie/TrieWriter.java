package io.eve.merkle.trie;

import java.util.Arrays;

/**
 * The copy-on-write update paths of {@link CanonicalTrie}: insert, delete and range replacement, each of which
 * restores the canonical shape (split a bucket that grows past {@link CanonicalTrie#BUCKET_MAX}, collapse a
 * branch whose subtree shrinks to it) on its way back up.
 *
 * <p>A node stamped with the current epoch is changed in place; any other node on the path is copied first and
 * the copy is stamped with the current epoch, so nodes reachable from a snapshot are never written. Nodes keep
 * the position (prefix and depth) they were created at: a split or a collapse always creates new nodes, which
 * is what lets a node's epoch stand for "this position has held exactly these contents since then".
 *
 * <p>One instance per trie, confined to its thread; the fields carry the current call's epoch and outcome.
 */
final class TrieWriter<K, V> {
    private long epoch;
    private V displaced;
    private boolean modified;
    private long rangePrefix;
    private int rangeDepth;
    private TrieEntry<K, V>[] incoming;

    /** Inserts or replaces {@code entry}; {@link #displaced()} then holds the previous value or null. */
    Node<K, V> put(Node<K, V> root, TrieEntry<K, V> entry, long epoch) {
        this.epoch = epoch;
        displaced = null;
        return insert(root, entry, 0);
    }

    /** Removes the key; {@link #displaced()} then holds the removed value or null. */
    Node<K, V> remove(Node<K, V> root, long keyHash, byte[] encodedKey, long epoch) {
        this.epoch = epoch;
        displaced = null;
        return delete(root, keyHash, encodedKey, 0);
    }

    /** Replaces every entry under ({@code prefix}, {@code depth}) with {@code sorted}, which all lie there. */
    Node<K, V> replace(Node<K, V> root, long prefix, int depth, TrieEntry<K, V>[] sorted, long epoch) {
        this.epoch = epoch;
        modified = false;
        rangePrefix = prefix;
        rangeDepth = depth;
        incoming = sorted;
        try {
            return replace(root, 0);
        } finally {
            incoming = null;
        }
    }

    V displaced() {
        V value = displaced;
        displaced = null;
        return value;
    }

    private Node<K, V> insert(Node<K, V> node, TrieEntry<K, V> entry, int depth) {
        if (node == null) {
            return Leaf.of(epoch, entry);
        }
        if (node instanceof Branch<K, V> branch) {
            int slot = Prefix.nibble(entry.keyHash, depth);
            Node<K, V> child = insert(branch.children[slot], entry, depth + 1);
            return withChild(branch, slot, child, branch.count + (displaced == null ? 1 : 0));
        }
        Leaf<K, V> leaf = (Leaf<K, V>) node;
        int index = leaf.find(entry.keyHash, entry.encodedKey);
        if (index >= 0) {
            displaced = leaf.entries[index].getValue();
            Leaf<K, V> target = leaf.writable(epoch, 0);
            target.set(index, entry);
            return target;
        }
        int at = -index - 1;
        if (leaf.count < CanonicalTrie.BUCKET_MAX || depth == Prefix.MAX_DEPTH) {
            Leaf<K, V> target = leaf.writable(epoch, 1);
            target.insert(at, entry);
            return target;
        }
        TrieEntry<K, V>[] grown = TrieEntry.newArray(leaf.count + 1);
        System.arraycopy(leaf.entries, 0, grown, 0, at);
        grown[at] = entry;
        System.arraycopy(leaf.entries, at, grown, at + 1, leaf.count - at);
        return build(grown, 0, grown.length, depth);
    }

    private Node<K, V> delete(Node<K, V> node, long keyHash, byte[] encodedKey, int depth) {
        if (node == null) {
            return null;
        }
        if (node instanceof Branch<K, V> branch) {
            int slot = Prefix.nibble(keyHash, depth);
            Node<K, V> child = delete(branch.children[slot], keyHash, encodedKey, depth + 1);
            return displaced == null ? branch : withChild(branch, slot, child, branch.count - 1);
        }
        Leaf<K, V> leaf = (Leaf<K, V>) node;
        int index = leaf.find(keyHash, encodedKey);
        if (index < 0) {
            return leaf;
        }
        displaced = leaf.entries[index].getValue();
        if (leaf.count == 1) {
            return null;
        }
        Leaf<K, V> target = leaf.writable(epoch, 0);
        target.delete(index);
        return target;
    }

    private Node<K, V> replace(Node<K, V> node, int depth) {
        if (node == null || (node instanceof Branch && depth == rangeDepth)) {
            // The whole range is this slot or node: rebuild it from the incoming entries alone.
            modified = node != null || incoming.length > 0;
            return build(incoming, 0, incoming.length, depth);
        }
        if (node instanceof Branch<K, V> branch) {
            int slot = Prefix.nibble(rangePrefix, depth);
            Node<K, V> child = branch.children[slot];
            int before = Node.sizeOf(child);
            Node<K, V> replaced = replace(child, depth + 1);
            if (!modified) {
                return branch;
            }
            return withChild(branch, slot, replaced, branch.count - before + Node.sizeOf(replaced));
        }
        return replaceInLeaf((Leaf<K, V>) node, depth);
    }

    /** The bucket keeps its entries outside the range and takes the incoming ones, merged in order. */
    private Node<K, V> replaceInLeaf(Leaf<K, V> leaf, int depth) {
        int kept = 0;
        for (int i = 0; i < leaf.count; i++) {
            if (!Prefix.matches(leaf.entries[i].keyHash, rangePrefix, rangeDepth)) {
                kept++;
            }
        }
        if (kept == leaf.count && incoming.length == 0) {
            return leaf;
        }
        modified = true;
        TrieEntry<K, V>[] merged = TrieEntry.newArray(kept + incoming.length);
        int next = 0;
        int in = 0;
        for (int i = 0; i < leaf.count; i++) {
            TrieEntry<K, V> own = leaf.entries[i];
            if (Prefix.matches(own.keyHash, rangePrefix, rangeDepth)) {
                continue;
            }
            while (in < incoming.length && TrieEntry.compare(incoming[in], own) < 0) {
                merged[next++] = incoming[in++];
            }
            merged[next++] = own;
        }
        while (in < incoming.length) {
            merged[next++] = incoming[in++];
        }
        return build(merged, 0, merged.length, depth);
    }

    /**
     * Puts {@code child} into {@code slot} of a branch whose subtree will hold {@code newCount} entries, or
     * collapses the branch into one bucket when that count is at most {@link CanonicalTrie#BUCKET_MAX}.
     */
    private Node<K, V> withChild(Branch<K, V> branch, int slot, Node<K, V> child, int newCount) {
        if (newCount <= CanonicalTrie.BUCKET_MAX) {
            return collapse(branch, slot, child, newCount);
        }
        Branch<K, V> target = branch.writable(epoch);
        target.count = newCount;
        target.setChild(slot, child, epoch);
        return target;
    }

    private Node<K, V> collapse(Branch<K, V> branch, int slot, Node<K, V> child, int newCount) {
        if (newCount == 0) {
            return null;
        }
        TrieEntry<K, V>[] entries = TrieEntry.newArray(newCount);
        int next = 0;
        for (int i = 0; i < Branch.SLOTS; i++) {
            Node<K, V> source = i == slot ? child : branch.children[i];
            if (source != null) {
                next = source.copyEntriesTo(entries, next);
            }
        }
        return new Leaf<>(epoch, entries, newCount);
    }

    /** The canonical subtree at {@code depth} for {@code sorted[from, to)}, all stamped with the epoch. */
    private Node<K, V> build(TrieEntry<K, V>[] sorted, int from, int to, int depth) {
        int count = to - from;
        if (count == 0) {
            return null;
        }
        if (count <= CanonicalTrie.BUCKET_MAX || depth == Prefix.MAX_DEPTH) {
            return new Leaf<>(epoch, Arrays.copyOfRange(sorted, from, to), count);
        }
        Branch<K, V> branch = Branch.empty(epoch);
        branch.count = count;
        int start = from;
        while (start < to) {
            int slot = Prefix.nibble(sorted[start].keyHash, depth);
            int end = start + 1;
            while (end < to && Prefix.nibble(sorted[end].keyHash, depth) == slot) {
                end++;
            }
            branch.children[slot] = build(sorted, start, end, depth + 1);
            start = end;
        }
        return branch;
    }
}
