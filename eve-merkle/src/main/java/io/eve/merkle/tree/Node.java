package io.eve.merkle.tree;

import io.eve.merkle.Digest;

/**
 * One node of the {@link IdTree}: 16 slots, their digests in one contiguous array (hashed with a single
 * digest update), and the epoch in which the node was created. A node is mutated in place only during
 * its own epoch; in any later epoch it is copied first, so older roots stay intact.
 *
 * <p>At level 0 the slots hold values and {@code slotEpochs} says when each was last written; above, the
 * slots hold child nodes and {@code dirtyMask} marks children whose digest in {@code digests} is stale.
 */
final class Node {
    static final int FANOUT = 16;

    final int level;
    final long epoch;
    final Object[] slots;
    final byte[] digests;
    final long[] slotEpochs;
    int dirtyMask;

    Node(int level, long epoch) {
        this.level = level;
        this.epoch = epoch;
        this.slots = new Object[FANOUT];
        this.digests = new byte[FANOUT * Digest.LENGTH];
        this.slotEpochs = level == 0 ? newSlotEpochs() : null;
    }

    private Node(Node source, long epoch) {
        this.level = source.level;
        this.epoch = epoch;
        this.slots = source.slots.clone();
        this.digests = source.digests.clone();
        this.slotEpochs = source.slotEpochs == null ? null : source.slotEpochs.clone();
        this.dirtyMask = source.dirtyMask;
    }

    private static long[] newSlotEpochs() {
        long[] epochs = new long[FANOUT];
        java.util.Arrays.fill(epochs, Long.MIN_VALUE);
        return epochs;
    }

    /** This node if it belongs to {@code epoch}, else a copy that does. */
    Node editable(long epoch) {
        return this.epoch == epoch ? this : new Node(this, epoch);
    }

    boolean isLeaf() {
        return level == 0;
    }

    Node child(int index) {
        return (Node) slots[index];
    }
}
