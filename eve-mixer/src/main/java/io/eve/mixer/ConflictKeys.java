package io.eve.mixer;

import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * What one request reads and writes, as the application predicts it (Eve §5.1): object ids for a key-value
 * store, table names for TPC-W. Two requests conflict when one writes a key the other reads or writes.
 *
 * <p>A key is any immutable value with {@code equals} and {@code hashCode}; keys of different types never
 * collide unless their {@code equals} says so. The sets are copied; their iteration order carries no
 * meaning. Use {@link #of} to build one from sets of a narrower type. Immutable and thread-safe.
 *
 * @param reads keys the request reads
 * @param writes keys the request writes
 */
public record ConflictKeys(Set<Object> reads, Set<Object> writes) {
    private static final int SMALL_UNION = 8;
    private static final ConflictKeys NONE = new ConflictKeys(Set.of(), Set.of());

    public ConflictKeys {
        reads = immutableCopy(reads, "reads");
        writes = immutableCopy(writes, "writes");
    }

    /** A request that touches nothing the mixer knows of; it conflicts with no other request. */
    public static ConflictKeys none() {
        return NONE;
    }

    /** A request that only reads {@code keys}. */
    public static ConflictKeys reading(Object... keys) {
        return NONE.andReading(keys);
    }

    /** A request that only writes {@code keys}. */
    public static ConflictKeys writing(Object... keys) {
        return NONE.andWriting(keys);
    }

    /** A request that reads {@code reads} and writes {@code writes}. */
    public static ConflictKeys of(Collection<?> reads, Collection<?> writes) {
        return new ConflictKeys(immutableCopy(reads, "reads"), immutableCopy(writes, "writes"));
    }

    /** These keys plus reads of {@code keys}. */
    public ConflictKeys andReading(Object... keys) {
        return new ConflictKeys(union(reads, keys, "reads"), writes);
    }

    /** These keys plus writes of {@code keys}. */
    public ConflictKeys andWriting(Object... keys) {
        return new ConflictKeys(reads, union(writes, keys, "writes"));
    }

    /** True when one of the two requests writes a key the other reads or writes. */
    public boolean conflictsWith(ConflictKeys other) {
        return overlaps(writes, other.writes) || overlaps(writes, other.reads) || overlaps(reads, other.writes);
    }

    private static boolean overlaps(Set<?> some, Set<?> others) {
        Set<?> smaller = some.size() <= others.size() ? some : others;
        Set<?> larger = smaller == some ? others : some;
        for (Object key : smaller) {
            if (larger.contains(key)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The union as an immutable set. Requests usually declare one or two keys, so small unions are built by
     * a linear scan straight into {@link Set#of}, without the two hash sets {@link Set#copyOf} builds;
     * this runs on the execution stage's thread for every request of every batch.
     */
    private static Set<Object> union(Set<?> existing, Object[] added, String what) {
        Objects.requireNonNull(added, what + " must not be null");
        for (Object key : added) {
            if (key == null) {
                throw new NullPointerException(what + " must not contain a null key, got " + Arrays.asList(added));
            }
        }
        int total = existing.size() + added.length;
        if (total > SMALL_UNION) {
            Set<Object> union = new HashSet<>(existing);
            union.addAll(Arrays.asList(added));
            return Set.copyOf(union);
        }
        Object[] keys = existing.toArray(new Object[total]);
        int distinct = existing.size();
        for (Object key : added) {
            if (!containsKey(keys, distinct, key)) {
                keys[distinct++] = key;
            }
        }
        return Set.of(distinct == total ? keys : Arrays.copyOf(keys, distinct));
    }

    private static boolean containsKey(Object[] keys, int count, Object key) {
        for (int i = 0; i < count; i++) {
            if (keys[i].equals(key)) {
                return true;
            }
        }
        return false;
    }

    // Checked here so that the error names the null key's set instead of Set.copyOf failing bare.
    private static Set<Object> immutableCopy(Collection<?> keys, String what) {
        Objects.requireNonNull(keys, what + " must not be null");
        for (Object key : keys) {
            if (key == null) {
                throw new NullPointerException(what + " must not contain a null key, got " + keys);
            }
        }
        return Set.copyOf(keys); // returns an immutable set as it is
    }
}
