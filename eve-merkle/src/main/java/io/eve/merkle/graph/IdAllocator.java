package io.eve.merkle.graph;

import io.eve.merkle.Digest;
import io.eve.merkle.codec.HashSink;
import java.util.Arrays;

/**
 * Hands out dense object ids deterministically: freed ids first, lowest first, then fresh ones. Id 0 is
 * the roots table and never handed out. Its state is a small immutable {@link Allocation}, so saving it
 * per version is O(1). Used by the sealing thread only.
 */
final class IdAllocator {
    private static final long[] NONE = new long[0];

    /**
     * An immutable allocator state: ids below {@code nextId} not in {@code free[cursor..]} are in use.
     * {@code freeDigest} covers {@code free}, computed once when the free list is rebuilt, so the
     * allocator can be part of every root digest without rehashing the list at each allocation.
     */
    record Allocation(long nextId, long[] free, int cursor, Digest freeDigest) {
        static Allocation of(long nextId, long[] free, int cursor) {
            return new Allocation(nextId, free, cursor, digestOf(free));
        }
    }

    private long nextId = 1;
    private long[] free = NONE;
    private int cursor;
    private Digest freeDigest = digestOf(NONE);

    long allocate() {
        return cursor < free.length ? free[cursor++] : nextId++;
    }

    /** Returns ids to the pool; {@code freed} is sorted ascending and holds ids currently in use. */
    void release(long[] freed) {
        long[] remaining = Arrays.copyOfRange(free, cursor, free.length);
        long[] merged = new long[remaining.length + freed.length];
        System.arraycopy(remaining, 0, merged, 0, remaining.length);
        System.arraycopy(freed, 0, merged, remaining.length, freed.length);
        Arrays.sort(merged);
        free = merged;
        cursor = 0;
        freeDigest = digestOf(merged);
    }

    Allocation snapshot() {
        return new Allocation(nextId, free, cursor, freeDigest);
    }

    void restore(Allocation allocation) {
        nextId = allocation.nextId();
        free = allocation.free();
        cursor = allocation.cursor();
        freeDigest = allocation.freeDigest();
    }

    /** Feeds the allocator's state into a digest: next id, cursor and the free list's digest. */
    void encode(HashSink sink) {
        sink.putLong(nextId);
        sink.putInt(cursor);
        sink.putDigest(freeDigest);
    }

    private static Digest digestOf(long[] ids) {
        HashSink sink = HashSink.forCurrentThread();
        sink.putByte(0x05);
        sink.putInt(ids.length);
        for (long id : ids) {
            sink.putLong(id);
        }
        return sink.finish();
    }

    long nextId() {
        return nextId;
    }
}
