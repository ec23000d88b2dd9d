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
 * <p>Thread-safe: every method holds the collection's lock, so requests of one parallel batch may use
 * the collection concurrently (on different keys, if the mixer did its job).
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

    private final CanonicalTrie<Object, Object> trie = new CanonicalTrie<>(CODEC);

    /** Keys given a not-yet-placed object in this batch: where the placement scan must look. */
    private final List<Object> newReferenceKeys = new ArrayList<>();

    TrieCollection() {}

    final synchronized Object getEntry(Object key) {
        CanonicalValues.checkKey(key);
        return CanonicalValues.copy(trie.get(key));
    }

    final synchronized boolean hasEntry(Object key) {
        CanonicalValues.checkKey(key);
        return trie.containsKey(key);
    }

    final synchronized Object putEntry(Object key, Object value) {
        CanonicalValues.checkKey(key);
        if (value == null) {
            throw new IllegalArgumentException(
                    "a replicated map holds no null values (key " + key + "); remove the key instead");
        }
        CanonicalValues.checkValue(value);
        long epoch = beforeWrite();
        if (value instanceof StateObject object && object.owner == null) {
            newReferenceKeys.add(key);
        }
        return trie.put(key, CanonicalValues.copy(value), epoch);
    }

    final synchronized Object removeEntry(Object key) {
        CanonicalValues.checkKey(key);
        if (!trie.containsKey(key)) {
            return null;
        }
        return trie.remove(key, beforeWrite());
    }

    /** Number of entries. */
    public final synchronized int size() {
        return trie.size();
    }

    public final synchronized boolean isEmpty() {
        return trie.isEmpty();
    }

    /** The entries in canonical order, copied, so the caller may iterate while others write. */
    final synchronized List<Map.Entry<Object, Object>> entries() {
        List<Map.Entry<Object, Object>> copy = new ArrayList<>(trie.size());
        trie.forEach((key, value) -> copy.add(Map.entry(key, CanonicalValues.copy(value))));
        return copy;
    }

    private long beforeWrite() {
        ObjectGraphState state = owner;
        if (state == null) {
            return UNPLACED_EPOCH;
        }
        state.modify(this);
        return state.sealedSeq() + 1;
    }

    // The engine's side (CollectionHandler), called by one thread while no request runs.

    final synchronized void hashInto(io.eve.merkle.codec.Sink sink) {
        sink.putInt(trie.size());
        byte[] root = trie.rootDigest().toByteArray();
        sink.putBytes(root, 0, root.length);
    }

    final synchronized TrieSnapshot<Object, Object> snapshot() {
        return trie.snapshot();
    }

    @SuppressWarnings("unchecked")
    final synchronized void restore(Object snapshot) {
        trie.restore((TrieSnapshot<Object, Object>) snapshot);
        newReferenceKeys.clear();
    }

    final synchronized void forEachValue(BiConsumer<Object, Object> action) {
        trie.forEach(action);
    }

    /** The values newly set to unplaced objects in this batch, in canonical key order. */
    final synchronized List<Object> newReferences() {
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

    final synchronized void afterSeal() {
        newReferenceKeys.clear();
    }

    final synchronized List<Bucket<Object, Object>> changedSince(long seq, boolean whole) {
        if (!whole) {
            return trie.changedSince(seq);
        }
        List<Map.Entry<Object, Object>> all = new ArrayList<>(trie.size());
        trie.forEach((key, value) -> all.add(Map.entry(key, value)));
        return List.of(new Bucket<>(0L, 0, all));
    }

    /** The value this collection holds for {@code key}, which a delta says is unchanged. */
    final synchronized Object currentValue(Object key) {
        Object value = trie.get(key);
        if (value == null) {
            throw new MalformedInputException("a delta keeps the value of key " + key + ", which this replica lacks");
        }
        return value;
    }

    final synchronized void replace(List<Bucket<Object, Object>> buckets, long epoch) {
        for (Bucket<Object, Object> bucket : buckets) {
            try {
                trie.replaceRange(bucket.prefix(), bucket.depth(), bucket.entries(), epoch);
            } catch (IllegalArgumentException e) {
                throw new MalformedInputException("collection range " + bucket + ": " + e.getMessage());
            }
        }
    }
}
