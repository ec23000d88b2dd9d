package io.eve.merkle.graph;

import io.eve.merkle.codec.DigestFeed;
import io.eve.merkle.codec.MalformedInputException;
import io.eve.merkle.trie.Bucket;
import io.eve.merkle.trie.CanonicalTrie;
import io.eve.merkle.trie.TrieCodec;
import io.eve.merkle.trie.TrieSnapshot;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Shared body of {@link ReplicatedMap} and {@link ReplicatedSet}: a {@link CanonicalTrie} whose shape,
 * digest and iteration order depend only on its contents (Eve §5.2.2), saved in O(1) as a pre-image on the
 * first write of a batch, with no {@code modify} call from the application.
 *
 * <p>Thread-safe: every method holds the collection's private lock, so requests of one parallel batch
 * may use the collection concurrently (on different keys, if the mixer did its job). {@code modify} is
 * called before the lock is taken, since it may wait for another thread's capture, which takes it.
 */
abstract class TrieCollection extends StateObject {
    /** Epoch of writes to a collection not yet placed: it is nobody's state yet, no version to protect. */
    private static final long UNPLACED_EPOCH = Long.MIN_VALUE + 1;

    private static final TrieCodec<Object, Object> CODEC = new TrieCodec<>() {
        @Override
        public byte[] encodeKey(Object key) {
            return CanonicalValues.encodeKey(key);
        }

        @Override
        public void hashValue(Object value, MessageDigest sha256) {
            DigestFeed feed = DigestFeed.feeding(sha256);
            CanonicalValues.encode(value, feed);
            feed.flush();
        }
    };

    /** A private lock, not the object's monitor, so an application synchronizing on the collection cannot deadlock with a pre-image capture. */
    private final Object lock = new Object();

    private final CanonicalTrie<Object, Object> trie = new CanonicalTrie<>(CODEC);

    /** Keys given a not-yet-placed object in this batch: where the placement scan must look. */
    private final List<Object> newReferenceKeys = new ArrayList<>();

    TrieCollection() {}

    final Object getEntry(Object key) {
        synchronized (lock) {
            CanonicalValues.checkKey(key);
            return CanonicalValues.copy(trie.get(key));
        }
    }

    final boolean hasEntry(Object key) {
        synchronized (lock) {
            CanonicalValues.checkKey(key);
            return trie.containsKey(key);
        }
    }

    final Object putEntry(Object key, Object value) {
        CanonicalValues.checkKey(key);
        if (value == null) {
            throw new IllegalArgumentException(
                    "a replicated map holds no null values (key " + key + "); remove the key instead");
        }
        CanonicalValues.checkValue(value);
        beforeWrite();
        synchronized (lock) {
            if (value instanceof StateObject object && object.owner == null) {
                newReferenceKeys.add(key);
            }
            Object previous = trie.put(key, CanonicalValues.copy(value), writeEpoch());
            RequestLog.current().recordEntry(this, key, previous);
            // A copy, so the caller cannot change the value a rollback or a failed request puts back.
            return CanonicalValues.copy(previous);
        }
    }

    /**
     * Removes {@code key}. The key is encoded and hashed once ({@link CanonicalTrie.Probe}) for the look-up that
     * decides whether this is a write at all, the look-up again under the lock after the pre-image, and the
     * removal.
     */
    final Object removeEntry(Object key) {
        CanonicalValues.checkKey(key);
        CanonicalTrie.Probe<Object> probe;
        synchronized (lock) {
            probe = trie.probe(key);
            if (!trie.containsAt(probe)) {
                return null;
            }
        }
        beforeWrite();
        synchronized (lock) {
            if (!trie.containsAt(probe)) {
                return null;
            }
            Object previous = trie.removeAt(probe, writeEpoch());
            RequestLog.current().recordEntry(this, key, previous);
            return CanonicalValues.copy(previous);
        }
    }

    /** Puts back the value a failed request found for {@code key} ({@code null}: absent). */
    final void restoreEntry(Object key, Object previous) {
        synchronized (lock) {
            if (previous != null) {
                trie.put(key, previous, writeEpoch());
            } else {
                CanonicalTrie.Probe<Object> probe = trie.probe(key);
                if (trie.containsAt(probe)) {
                    trie.removeAt(probe, writeEpoch());
                }
            }
        }
    }

    /** Number of entries. */
    public final int size() {
        synchronized (lock) {
            return trie.size();
        }
    }

    public final boolean isEmpty() {
        synchronized (lock) {
            return trie.isEmpty();
        }
    }

    /** The entries in canonical order, copied, so the caller may iterate while others write. */
    final List<Map.Entry<Object, Object>> entries() {
        synchronized (lock) {
            List<Map.Entry<Object, Object>> copy = new ArrayList<>(trie.size());
            trie.forEach((key, value) -> copy.add(Map.entry(key, CanonicalValues.copy(value))));
            return copy;
        }
    }

    /**
     * Saves the pre-image on the first write of a batch. Called without holding this collection's lock:
     * {@code modify} may wait for another thread's capture, which takes the lock.
     */
    private void beforeWrite() {
        ObjectGraphState state = owner != null ? owner : lastOwner;
        if (state != null) {
            state.modify(this);
        }
    }

    /** The epoch of a write now: the batch being executed, or for a collection outside any state the next free one. */
    private long writeEpoch() {
        ObjectGraphState state = owner;
        if (state != null) {
            return state.writeSeq();
        }
        return Math.max(UNPLACED_EPOCH, trie.writableEpoch());
    }

    // The engine's side (CollectionHandler), called by one thread while no request runs.

    final void hashInto(io.eve.merkle.codec.Sink sink) {
        synchronized (lock) {
            sink.putInt(trie.size());
            byte[] root = trie.rootDigest().toByteArray();
            sink.putBytes(root, 0, root.length);
        }
    }

    final TrieSnapshot<Object, Object> snapshot() {
        synchronized (lock) {
            return trie.snapshot();
        }
    }

    @SuppressWarnings("unchecked")
    final void restore(Object snapshot) {
        synchronized (lock) {
            trie.restore((TrieSnapshot<Object, Object>) snapshot);
            newReferenceKeys.clear();
        }
    }

    final void forEachValue(BiConsumer<Object, Object> action) {
        synchronized (lock) {
            trie.forEach(action);
        }
    }

    /** The values newly set to unplaced objects in this batch, in canonical key order. */
    final List<Object> newReferences() {
        synchronized (lock) {
            byte[][] keys = new byte[newReferenceKeys.size()][];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = CanonicalValues.encodeKey(newReferenceKeys.get(i));
            }
            Object[] byKey = newReferenceKeys.toArray();
            Integer[] order = new Integer[keys.length];
            Arrays.setAll(order, i -> i);
            Arrays.sort(order, (a, b) -> Arrays.compareUnsigned(keys[a], keys[b]));
            List<Object> values = new ArrayList<>(order.length);
            for (Integer i : order) {
                values.add(trie.get(byKey[i]));
            }
            return values;
        }
    }

    final void afterSeal() {
        synchronized (lock) {
            newReferenceKeys.clear();
        }
    }

    final List<Bucket<Object, Object>> changedSince(long seq, boolean whole) {
        synchronized (lock) {
            if (!whole) {
                return trie.changedSince(seq);
            }
            List<Map.Entry<Object, Object>> all = new ArrayList<>(trie.size());
            trie.forEach((key, value) -> all.add(Map.entry(key, value)));
            return List.of(new Bucket<>(0L, 0, all));
        }
    }

    /** The value this collection holds for {@code key}, which a delta says is unchanged. */
    final Object currentValue(Object key) {
        synchronized (lock) {
            Object value = trie.get(key);
            if (value == null) {
                throw new MalformedInputException(
                        "a delta keeps the value of key " + key + ", which this replica lacks");
            }
            return value;
        }
    }

    final void replace(List<Bucket<Object, Object>> buckets, long epoch) {
        synchronized (lock) {
            for (Bucket<Object, Object> bucket : buckets) {
                try {
                    trie.replaceRange(bucket.prefix(), bucket.depth(), bucket.entries(), epoch);
                } catch (IllegalArgumentException e) {
                    throw new MalformedInputException("collection range " + bucket + ": " + e.getMessage());
                }
            }
        }
    }
}
