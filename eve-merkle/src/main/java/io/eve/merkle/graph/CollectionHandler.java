package io.eve.merkle.graph;

import io.eve.merkle.codec.MalformedInputException;
import io.eve.merkle.codec.Sink;
import io.eve.merkle.codec.Source;
import io.eve.merkle.trie.Bucket;
import io.eve.merkle.trie.CanonicalTrie;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The {@link TypeHandler} of the trie-backed collections. Digest input: entry count and the trie's root
 * digest. Pre-image: an O(1) trie snapshot. Delta: the trie's changed key ranges, or one range holding
 * everything for a collection the receiver does not have yet. A range lists all its keys but ships only
 * the values written since the base version; for the others the receiver keeps the value it has:
 *
 * <pre>
 * int range count, per range: long prefix, int depth (nibbles), int entry count,
 *     per entry: key, byte (1: value follows | 0: unchanged since the base version), [value]
 * </pre>
 *
 * Immutable and thread-safe.
 */
final class CollectionHandler implements TypeHandler {
    /** Marks a value the receiver already holds. */
    private static final Object UNCHANGED = new Object();

    private final String name;
    private final Supplier<TrieCollection> factory;

    CollectionHandler(String name, Supplier<TrieCollection> factory) {
        this.name = name;
        this.factory = factory;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void encode(StateObject object, Sink sink) {
        ((TrieCollection) object).hashInto(sink);
    }

    @Override
    public Object capture(StateObject object) {
        return ((TrieCollection) object).snapshot();
    }

    @Override
    public void restore(StateObject object, Object preImage) {
        ((TrieCollection) object).restore(preImage);
    }

    @Override
    public void forEachReference(StateObject object, Consumer<StateObject> action) {
        ((TrieCollection) object).forEachValue((key, value) -> {
            if (value instanceof StateObject referent) {
                action.accept(referent);
            }
        });
    }

    @Override
    public void forEachNewReference(StateObject object, Consumer<StateObject> action) {
        for (Object value : ((TrieCollection) object).newReferences()) {
            if (value instanceof StateObject referent) {
                action.accept(referent);
            }
        }
    }

    @Override
    public void afterSeal(StateObject object) {
        ((TrieCollection) object).afterSeal();
    }

    @Override
    public void writeDelta(StateObject object, long sinceSeq, boolean whole, Sink sink) {
        List<Bucket<Object, Object>> ranges = ((TrieCollection) object).changedSince(sinceSeq, whole);
        sink.putInt(ranges.size());
        for (Bucket<Object, Object> range : ranges) {
            sink.putLong(range.prefix());
            sink.putInt(range.depth());
            sink.putInt(range.entries().size());
            for (Map.Entry<Object, Object> entry : range.entries()) {
                CanonicalValues.encode(entry.getKey(), sink);
                boolean ship = whole || CanonicalTrie.lastModified(entry) > sinceSeq;
                sink.putBoolean(ship);
                if (ship) {
                    CanonicalValues.encode(entry.getValue(), sink);
                }
            }
        }
    }

    @Override
    public PendingWrite readDelta(Source source, boolean whole) {
        int count = source.getCount(16, "collection range");
        List<long[]> headers = new ArrayList<>(count);
        List<List<Object[]>> contents = new ArrayList<>(count);
        for (int r = 0; r < count; r++) {
            long prefix = source.getLong();
            int depth = source.getInt();
            int entries = source.getCount(2, "collection entry");
            List<Object[]> pairs = new ArrayList<>(entries);
            for (int e = 0; e < entries; e++) {
                Object key = CanonicalValues.decodeKey(source);
                pairs.add(new Object[] {key, source.getBoolean() ? CanonicalValues.decode(source) : UNCHANGED});
            }
            headers.add(new long[] {prefix, depth});
            contents.add(pairs);
        }
        return (target, objects, epoch) -> {
            TrieCollection collection = (TrieCollection) target;
            List<Bucket<Object, Object>> ranges = new ArrayList<>(count);
            for (int r = 0; r < count; r++) {
                List<Map.Entry<Object, Object>> entries = new ArrayList<>();
                for (Object[] pair : contents.get(r)) {
                    Object value = pair[1] == UNCHANGED
                            ? collection.currentValue(pair[0])
                            : CanonicalValues.resolve(pair[1], objects);
                    entries.add(new AbstractMapEntry(pair[0], value));
                }
                ranges.add(range(headers.get(r), entries));
            }
            collection.replace(ranges, epoch);
        };
    }

    private static Bucket<Object, Object> range(long[] header, List<Map.Entry<Object, Object>> entries) {
        try {
            return new Bucket<>(header[0], (int) header[1], entries);
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new MalformedInputException("bad collection range: " + e.getMessage());
        }
    }

    @Override
    public StateObject newInstance() {
        return factory.get();
    }

    /** An entry that, unlike {@link Map#entry}, may hold a {@code null} value. */
    private static final class AbstractMapEntry extends java.util.AbstractMap.SimpleImmutableEntry<Object, Object> {
        private static final long serialVersionUID = 1L;

        AbstractMapEntry(Object key, Object value) {
            super(key, value);
        }
    }
}
