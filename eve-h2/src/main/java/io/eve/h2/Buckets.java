package io.eve.h2;

import io.eve.merkle.Digest;
import io.eve.merkle.codec.HashSink;
import java.util.Arrays;
import java.util.BitSet;

/**
 * The digests of one table: a multiset hash per bucket and a binary Merkle tree over the buckets.
 *
 * <p>A bucket's accumulator is AdHash: the sum modulo 2^256 of the digests of its rows, so inserting a
 * row adds its digest, deleting subtracts it, and the result does not depend on the order (docs/decisions
 * 0009). The bucket digest is {@code SHA-256(0x42 || sum || row count)}. The tree is kept in heap layout
 * (node 1 the root, the leaves at {@code count .. 2*count-1}); an inner node is
 * {@code SHA-256(left || right)}, and {@link #refresh} rehashes only the paths above dirty buckets.
 *
 * <p>Not thread-safe: changes are published under the state's commit lock, one transaction at a time.
 */
final class Buckets {
    private static final int LIMBS = 4;
    private static final int BUCKET_DOMAIN = 0x42;

    private final int count;
    private final long[] sums;
    private final long[] rows;
    private final long[] lastModified;
    private final byte[] tree;
    private final BitSet dirty = new BitSet();
    private long totalRows;

    Buckets(int count) {
        this.count = count;
        this.sums = new long[count * LIMBS];
        this.rows = new long[count];
        this.lastModified = new long[count];
        this.tree = new byte[2 * count * Digest.LENGTH];
        Arrays.fill(lastModified, Long.MIN_VALUE);
        dirty.set(0, count);
        refresh();
    }

    int count() {
        return count;
    }

    /** Adds ({@code sign} 1) or removes ({@code sign} -1) one row digest in {@code bucket}. */
    void add(int bucket, byte[] rowDigest, int sign) {
        int offset = bucket * LIMBS;
        if (sign > 0) {
            long carry = 0;
            for (int i = LIMBS - 1; i >= 0; i--) {
                long a = sums[offset + i];
                long x = limb(rowDigest, i);
                long s = a + x;
                long s2 = s + carry;
                carry = (Long.compareUnsigned(s, a) < 0 || Long.compareUnsigned(s2, s) < 0) ? 1 : 0;
                sums[offset + i] = s2;
            }
        } else {
            long borrow = 0;
            for (int i = LIMBS - 1; i >= 0; i--) {
                long a = sums[offset + i];
                long x = limb(rowDigest, i);
                sums[offset + i] = a - x - borrow;
                borrow = (Long.compareUnsigned(a, x) < 0 || (borrow == 1 && a == x)) ? 1 : 0;
            }
        }
        rows[bucket] += sign;
        totalRows += sign;
        dirty.set(bucket);
    }

    boolean isDirty() {
        return !dirty.isEmpty();
    }

    /** Rehashes the dirty buckets and the tree paths above them; returns the buckets it rehashed. */
    BitSet refresh() {
        BitSet refreshed = (BitSet) dirty.clone();
        BitSet nodes = new BitSet();
        HashSink sink = HashSink.forCurrentThread();
        for (int b = dirty.nextSetBit(0); b >= 0; b = dirty.nextSetBit(b + 1)) {
            sink.reset();
            sink.putByte(BUCKET_DOMAIN);
            for (int i = 0; i < LIMBS; i++) {
                sink.putLong(sums[b * LIMBS + i]);
            }
            sink.putLong(rows[b]);
            sink.finishInto(tree, (count + b) * Digest.LENGTH);
            nodes.set((count + b) >>> 1);
        }
        dirty.clear();
        // Level by level towards the root: the parents of the nodes just rehashed.
        while (!nodes.isEmpty() && !(nodes.cardinality() == 1 && nodes.get(0))) {
            BitSet parents = new BitSet();
            for (int n = nodes.nextSetBit(1); n >= 1; n = nodes.nextSetBit(n + 1)) {
                sink.reset();
                sink.putBytes(tree, 2 * n * Digest.LENGTH, 2 * Digest.LENGTH);
                sink.finishInto(tree, n * Digest.LENGTH);
                parents.set(n >>> 1);
            }
            nodes = parents;
        }
        return refreshed;
    }

    /** The table root: the tree's root, or the only bucket's digest when there is one bucket. */
    Digest root() {
        return Digest.of(tree, Digest.LENGTH);
    }

    Digest bucketDigest(int bucket) {
        return Digest.of(tree, (count + bucket) * Digest.LENGTH);
    }

    long rowCount() {
        return totalRows;
    }

    long rows(int bucket) {
        return rows[bucket];
    }

    long lastModified(int bucket) {
        return lastModified[bucket];
    }

    void markModified(BitSet buckets, long seq) {
        for (int b = buckets.nextSetBit(0); b >= 0; b = buckets.nextSetBit(b + 1)) {
            lastModified[b] = seq;
        }
    }

    private static long limb(byte[] digest, int index) {
        long value = 0;
        for (int i = index * 8; i < index * 8 + 8; i++) {
            value = (value << 8) | (digest[i] & 0xff);
        }
        return value;
    }
}
