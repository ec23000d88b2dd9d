package io.eve.merkle.tree;

import io.eve.merkle.Digest;
import io.eve.merkle.codec.HashSink;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ForkJoinPool;

/**
 * A persistent 16-ary Merkle radix tree over dense ids: slot {@code id} holds a value and the 32-byte
 * digest of that value (DESIGN.md section 4). Keeping an old {@link Snapshot} keeps that version; writes
 * copy each node on the path at most once per epoch (the epoch is the batch sequence number).
 *
 * <p>Digest format: an empty slot and an all-empty node are {@link Digest#ZERO}; any other node is
 * SHA-256(0x01 || the 16 slot digests); the root digest is SHA-256(0x02 || height as int || the root
 * node's digest). The tree grows in height as ids grow; it never shrinks.
 *
 * <p>Each slot remembers the epoch of its last write and each node the epoch it was created in, which
 * is the last-modified mark (PBFT's {@code lm}) that lets {@link #forEachChangedSince} visit only what
 * changed since a version.
 *
 * <p>Not thread-safe: one thread writes and hashes at a time. {@link #rootDigest()} may use a
 * fork-join pool internally to hash independent subtrees in parallel.
 *
 * @param <T> the slot values
 */
public final class IdTree<T> {
    private final ForkJoinPool pool;
    private final int parallelThreshold;
    private Node root;
    private int height;
    private Digest rootDigest;
    private int pendingWrites;
    private long lastEpoch = Long.MIN_VALUE;
    private boolean sealed;

    /**
     * @param pool hashes the root's dirty subtrees in parallel when more than {@code parallelThreshold}
     *     slots were written since the last digest; {@code null} hashes on the calling thread only
     */
    public IdTree(ForkJoinPool pool, int parallelThreshold) {
        this.pool = pool;
        this.parallelThreshold = parallelThreshold;
        this.root = new Node(0, Long.MIN_VALUE);
        this.height = 1;
        this.rootDigest = null;
    }

    /** An immutable version of the tree; restoring it is O(1). */
    public static final class Snapshot {
        private final Node root;
        private final int height;
        private final Digest rootDigest;
        private final long lastEpoch;

        private Snapshot(Node root, int height, Digest rootDigest, long lastEpoch) {
            this.root = root;
            this.height = height;
            this.rootDigest = rootDigest;
            this.lastEpoch = lastEpoch;
        }

        public Digest rootDigest() {
            return rootDigest;
        }

        /** The tree's height in this version. */
        public int height() {
            return height;
        }
    }

    /** Visits one slot. */
    @FunctionalInterface
    public interface SlotVisitor<T> {
        void visit(long id, T value, long lastModified);
    }

    public int height() {
        return height;
    }

    /** How many ids the tree can hold at its current height. */
    public long capacity() {
        return height >= 16 ? Long.MAX_VALUE : 1L << (4 * height);
    }

    /** Writes slot {@code id}: its value and the value's digest, taken from {@code digest} at offset 0. */
    public void set(long id, T value, byte[] digest, long epoch) {
        set(id, value, digest, 0, epoch);
    }

    /** Writes slot {@code id}: its value and the value's digest, taken from {@code digest} at {@code offset}. */
    public void set(long id, T value, byte[] digest, int offset, long epoch) {
        checkId(id);
        beginWrite(epoch);
        growTo(id, epoch);
        writeSlot(editableLeaf(id, epoch), id, value, digest, offset, epoch);
        rootDigest = null;
        pendingWrites++;
    }

    /**
     * Writes one slot per value, as {@link #set} would one by one: value {@code i} goes to slot
     * {@code ids[i]} with the digest at {@code i * 32} of {@code digests}. Consecutive values whose ids
     * share a leaf node (ids in ascending order, as the sealer writes them) walk the path down once. The
     * values are stored, never read.
     */
    public void setAll(List<? extends T> values, long[] ids, byte[] digests, long epoch) {
        if (values.isEmpty()) {
            return;
        }
        beginWrite(epoch);
        Node leaf = null;
        long leafNumber = -1;
        for (int i = 0; i < values.size(); i++) {
            T value = values.get(i);
            long id = ids[i];
            checkId(id);
            if (leaf == null || id >>> 4 != leafNumber) {
                // Nodes of this epoch are edited in place and never copied again within it, so the leaf
                // stays the tree's own even if the tree grows before the next write into it.
                growTo(id, epoch);
                leaf = editableLeaf(id, epoch);
                leafNumber = id >>> 4;
            }
            writeSlot(leaf, id, value, digests, i * Digest.LENGTH, epoch);
        }
        rootDigest = null;
        pendingWrites += values.size();
    }

    /** The leaf node of slot {@code id}, copied into this epoch with its path, the path marked dirty. */
    private Node editableLeaf(long id, long epoch) {
        root = root.editable(epoch);
        Node node = root;
        for (int level = height - 1; level > 0; level--) {
            int index = indexAt(id, level);
            Node child = node.child(index);
            child = child == null ? new Node(level - 1, epoch) : child.editable(epoch);
            node.slots[index] = child;
            node.dirtyMask |= 1 << index;
            node = child;
        }
        return node;
    }

    private static void writeSlot(Node leaf, long id, Object value, byte[] digest, int offset, long epoch) {
        int index = indexAt(id, 0);
        leaf.slots[index] = value;
        System.arraycopy(digest, offset, leaf.digests, index * Digest.LENGTH, Digest.LENGTH);
        leaf.slotEpochs[index] = epoch;
    }

    /** Empties slot {@code id}; its digest becomes {@link Digest#ZERO}. */
    public void clear(long id, long epoch) {
        set(id, null, Digest.ZERO.toByteArray(), epoch);
    }

    /** Grows the tree to at least {@code targetHeight} levels (a transfer reproduces the sender's height). */
    public void ensureHeight(int targetHeight, long epoch) {
        if (targetHeight > 16) {
            throw new IllegalArgumentException("a tree over 64-bit ids has at most 16 levels, got " + targetHeight);
        }
        if (targetHeight > height) {
            beginWrite(epoch);
            growTo(1L << (4 * (targetHeight - 1)), epoch);
        }
    }

    /** The value in slot {@code id}, or {@code null}. */
    public T get(long id) {
        return valueIn(root, height, id);
    }

    /** The digest stored with slot {@code id}. */
    public Digest slotDigest(long id) {
        return digestIn(root, height, id);
    }

    /** The value in slot {@code id} of the version {@code snapshot}, or {@code null}. */
    public T get(Snapshot snapshot, long id) {
        return valueIn(snapshot.root, snapshot.height, id);
    }

    /** The digest stored with slot {@code id} in the version {@code snapshot}. */
    public Digest slotDigest(Snapshot snapshot, long id) {
        return digestIn(snapshot.root, snapshot.height, id);
    }

    /**
     * Visits, in id order, every slot of the version {@code snapshot} written after epoch {@code sinceEpoch}
     * (emptied slots too, with a {@code null} value), as {@link #forEachChangedSince(long, SlotVisitor)}
     * does for the current version.
     */
    public void forEachChangedSince(Snapshot snapshot, long sinceEpoch, SlotVisitor<? super T> visitor) {
        visit(snapshot.root, 0L, snapshot.height - 1, sinceEpoch, visitor, true);
    }

    @SuppressWarnings("unchecked")
    private T valueIn(Node top, int levels, long id) {
        Node node = leafFor(top, levels, id);
        return node == null ? null : (T) node.slots[indexAt(id, 0)];
    }

    private static Digest digestIn(Node top, int levels, long id) {
        Node node = leafFor(top, levels, id);
        return node == null ? Digest.ZERO : Digest.of(node.digests, indexAt(id, 0) * Digest.LENGTH);
    }

    /** The leaf node that holds slot {@code id} in a tree of {@code levels} levels, or {@code null}. */
    private static Node leafFor(Node top, int levels, long id) {
        if (id < 0 || (levels < 16 && id >= 1L << (4 * levels))) {
            return null;
        }
        Node node = top;
        for (int level = levels - 1; level > 0 && node != null; level--) {
            node = node.child(indexAt(id, level));
        }
        return node;
    }

    /** The root digest, rehashing only the nodes written since the last call. */
    public Digest rootDigest() {
        if (rootDigest == null) {
            byte[] out = new byte[Digest.LENGTH];
            if (pool != null && pendingWrites > parallelThreshold && !root.isLeaf()) {
                hashFrontierInParallel();
            }
            hashNode(root, out, 0, HashSink.forCurrentThread());
            HashSink sink = HashSink.forCurrentThread();
            sink.putByte(0x02);
            sink.putInt(height);
            sink.putBytes(out, 0, Digest.LENGTH);
            rootDigest = sink.finish();
            pendingWrites = 0;
        }
        return rootDigest;
    }

    /** Takes an immutable version of the tree, hashing it first. */
    public Snapshot snapshot() {
        Digest digest = rootDigest();
        sealed = true;
        return new Snapshot(root, height, digest, lastEpoch);
    }

    /** Reinstates a version. Later writes must use an epoch above every epoch in that version (enforced). */
    public void restore(Snapshot snapshot) {
        root = snapshot.root;
        height = snapshot.height;
        rootDigest = snapshot.rootDigest;
        pendingWrites = 0;
        lastEpoch = snapshot.lastEpoch;
        sealed = true;
    }

    /**
     * Nodes of the last written epoch are edited in place, so once a snapshot or restore has closed that
     * epoch, writing it again would change a kept version: refuse epochs that go back or reopen it.
     */
    private void beginWrite(long epoch) {
        if (epoch < lastEpoch || (sealed && epoch == lastEpoch)) {
            throw new IllegalStateException("epoch " + epoch + " would edit a kept version: writes must use "
                    + (sealed ? "an epoch above " : "at least epoch ") + lastEpoch);
        }
        lastEpoch = epoch;
        sealed = false;
    }

    /** Visits every occupied slot in id order. */
    public void forEach(SlotVisitor<? super T> visitor) {
        visit(root, 0L, height - 1, Long.MIN_VALUE, visitor, false);
    }

    /**
     * Visits, in id order, every slot written after epoch {@code sinceEpoch} (emptied slots too, with a
     * {@code null} value), descending only into nodes created after it.
     */
    public void forEachChangedSince(long sinceEpoch, SlotVisitor<? super T> visitor) {
        visit(root, 0L, height - 1, sinceEpoch, visitor, true);
    }

    /** Recomputes the root digest from the slot digests alone, ignoring every cached node digest. */
    public Digest recomputeFromScratch() {
        byte[] out = new byte[Digest.LENGTH];
        rehashAll(root, out, 0, HashSink.forCurrentThread());
        HashSink sink = HashSink.forCurrentThread();
        sink.putByte(0x02);
        sink.putInt(height);
        sink.putBytes(out, 0, Digest.LENGTH);
        return sink.finish();
    }

    private static void rehashAll(Node node, byte[] out, int offset, HashSink sink) {
        byte[] digests = node.digests;
        if (!node.isLeaf()) {
            digests = new byte[Node.FANOUT * Digest.LENGTH];
            for (int i = 0; i < Node.FANOUT; i++) {
                Node child = node.child(i);
                if (child != null) {
                    rehashAll(child, digests, i * Digest.LENGTH, sink);
                }
            }
        }
        digestOf(digests, out, offset, sink);
    }

    @SuppressWarnings("unchecked")
    private void visit(Node node, long base, int level, long since, SlotVisitor<? super T> visitor, boolean delta) {
        if (node == null || (delta && node.epoch <= since)) {
            return;
        }
        long span = 1L << (4 * level);
        for (int i = 0; i < Node.FANOUT; i++) {
            long id = base + i * span;
            if (level == 0) {
                boolean changed = node.slotEpochs[i] > since;
                if (delta ? changed : node.slots[i] != null) {
                    visitor.visit(id, (T) node.slots[i], node.slotEpochs[i]);
                }
            } else {
                visit(node.child(i), id, level - 1, since, visitor, delta);
            }
        }
    }

    /**
     * Hashes the dirty subtrees below the root in parallel: descends from the root until it has a
     * frontier of enough dirty subtrees to share out, hashes those concurrently (each writes only its own
     * slot of its parent), then clears their dirty bits so the sequential pass above them reuses the result.
     */
    private void hashFrontierInParallel() {
        int wanted = 4 * (pool.getParallelism() + 1);
        List<Node> parents = new ArrayList<>();
        List<Integer> slots = new ArrayList<>();
        List<Node> frontier = new ArrayList<>(List.of(root));
        while (frontier.size() < wanted && !frontier.get(0).isLeaf() && frontier.get(0).level > 1) {
            List<Node> next = new ArrayList<>();
            for (Node node : frontier) {
                forEachDirtyChild(node, (index, child) -> next.add(child));
            }
            if (next.isEmpty()) {
                return;
            }
            frontier = next;
        }
        for (Node node : frontier) {
            forEachDirtyChild(node, (index, child) -> {
                parents.add(node);
                slots.add(index);
            });
        }
        ParallelLoop.run(pool, parents.size(), i -> {
            Node parent = parents.get(i);
            int index = slots.get(i);
            hashNode(parent.child(index), parent.digests, index * Digest.LENGTH, HashSink.forCurrentThread());
        });
        for (int i = 0; i < parents.size(); i++) {
            parents.get(i).dirtyMask &= ~(1 << slots.get(i));
        }
    }

    private interface ChildVisitor {
        void visit(int index, Node child);
    }

    private static void forEachDirtyChild(Node node, ChildVisitor visitor) {
        int mask = node.dirtyMask;
        while (mask != 0) {
            int index = Integer.numberOfTrailingZeros(mask);
            mask &= mask - 1;
            Node child = node.child(index);
            if (child != null) {
                visitor.visit(index, child);
            }
        }
    }

    /** Brings {@code node}'s stale child digests up to date, then writes its own digest into {@code out}. */
    private void hashNode(Node node, byte[] out, int offset, HashSink sink) {
        int mask = node.dirtyMask;
        while (mask != 0) {
            int index = Integer.numberOfTrailingZeros(mask);
            mask &= mask - 1;
            Node child = node.child(index);
            if (child == null) {
                System.arraycopy(Digest.ZERO.toByteArray(), 0, node.digests, index * Digest.LENGTH, Digest.LENGTH);
            } else {
                hashNode(child, node.digests, index * Digest.LENGTH, sink);
            }
        }
        node.dirtyMask = 0;
        digestOf(node.digests, out, offset, sink);
    }

    private static void digestOf(byte[] childDigests, byte[] out, int offset, HashSink sink) {
        if (allZero(childDigests)) {
            java.util.Arrays.fill(out, offset, offset + Digest.LENGTH, (byte) 0);
            return;
        }
        sink.reset();
        sink.putByte(0x01);
        sink.putBytes(childDigests, 0, childDigests.length);
        sink.finishInto(out, offset);
    }

    private static boolean allZero(byte[] bytes) {
        for (byte b : bytes) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    private void growTo(long id, long epoch) {
        while (id >= capacity()) {
            Node newRoot = new Node(height, epoch);
            newRoot.slots[0] = root;
            newRoot.dirtyMask = 1;
            root = newRoot;
            height++;
        }
    }

    private static int indexAt(long id, int level) {
        return (int) ((id >>> (4 * level)) & 0xF);
    }

    private static void checkId(long id) {
        if (id < 0) {
            throw new IllegalArgumentException("ids are not negative, got " + id);
        }
    }
}
