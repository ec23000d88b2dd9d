package io.eve.merkle.trie;

import io.eve.merkle.Digest;
import java.util.Arrays;

/**
 * An internal node: 16 child slots (empty slot = {@code null}) over a subtree of more than
 * {@link CanonicalTrie#BUCKET_MAX} entries.
 *
 * <p>The children's digests live in one contiguous array, the input of this node's own digest;
 * {@link #dirtyMask} marks the slots whose digest there is stale. {@link #slotEpochs} records, per slot, the
 * epoch in which the slot was last assigned; for an empty slot that tells state transfer whether it was
 * already empty at an earlier epoch.
 */
final class Branch<K, V> extends Node<K, V> {
    static final int SLOTS = 16;
    static final int ALL_SLOTS = 0xFFFF;

    final Node<K, V>[] children;
    final byte[] childDigests;
    final long[] slotEpochs;
    int dirtyMask;
    int count;

    private Branch(
            long epoch, Node<K, V>[] children, byte[] childDigests, long[] slotEpochs, int dirtyMask, int count) {
        super(epoch);
        this.children = children;
        this.childDigests = childDigests;
        this.slotEpochs = slotEpochs;
        this.dirtyMask = dirtyMask;
        this.count = count;
    }

    /** An empty branch stamped {@code epoch} in every slot; the caller fills the slots and the count. */
    @SuppressWarnings("unchecked")
    static <K, V> Branch<K, V> empty(long epoch) {
        long[] slotEpochs = new long[SLOTS];
        Arrays.fill(slotEpochs, epoch);
        Node<K, V>[] children = (Node<K, V>[]) new Node<?, ?>[SLOTS];
        return new Branch<>(epoch, children, new byte[SLOTS * Digest.LENGTH], slotEpochs, ALL_SLOTS, 0);
    }

    @Override
    int size() {
        return count;
    }

    @Override
    int copyEntriesTo(TrieEntry<K, V>[] target, int offset) {
        int next = offset;
        for (Node<K, V> child : children) {
            if (child != null) {
                next = child.copyEntriesTo(target, next);
            }
        }
        return next;
    }

    /** This branch if {@code epoch} created it, otherwise a copy stamped {@code epoch}. */
    Branch<K, V> writable(long epoch) {
        if (epoch == this.epoch) {
            return this;
        }
        return new Branch<>(epoch, children.clone(), childDigests.clone(), slotEpochs.clone(), dirtyMask, count);
    }

    /** Assigns a slot of a writable branch and invalidates the digests that depend on it. */
    void setChild(int slot, Node<K, V> child, long epoch) {
        children[slot] = child;
        slotEpochs[slot] = epoch;
        dirtyMask |= 1 << slot;
        hash = null;
    }
}
