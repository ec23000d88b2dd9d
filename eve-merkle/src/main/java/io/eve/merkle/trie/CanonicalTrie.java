package io.eve.merkle.trie;

import io.eve.merkle.Digest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.ToLongFunction;

/**
 * A persistent map whose shape, iteration order and root digest depend only on its contents, never on the
 * order of updates, the deletion history or snapshots and restores: the Merkle form of a replicated map or set.
 *
 * <h2>Shape</h2>
 * An entry's key hash is the first 8 bytes, big-endian, of SHA-256 over the key's canonical bytes
 * ({@link TrieCodec#encodeKey}). Its nibbles, most significant first, pick the child slot at each level of a
 * 16-ary trie. A subtree holding at most {@link #BUCKET_MAX} entries is one bucket; a larger one is a branch of
 * 16 slots. At depth 16 the hash is used up and a bucket holds any number of entries. Buckets, and iteration,
 * follow canonical order: key hash as unsigned, then key bytes as unsigned, lexicographically.
 *
 * <h2>Digest format</h2>
 * All integers are 4 bytes big-endian; {@code ||} is concatenation.
 * <ul>
 *   <li>empty trie, empty slot: {@link Digest#ZERO} (32 zero bytes);
 *   <li>bucket: SHA-256({@code 0x02 || count || for each entry in canonical order: keyLength || key bytes ||
 *       value bytes}), where the value bytes are whatever {@link TrieCodec#hashValue} feeds;
 *   <li>branch: SHA-256({@code 0x01 ||} the 32-byte digests of slots 0 to 15).
 * </ul>
 * Positions are not hashed: they follow from the keys. Digests are cached per node and computed lazily, so
 * {@link #rootDigest()} hashes only nodes created or changed since the last call.
 *
 * <h2>Epochs, snapshots, restore</h2>
 * Every update names its epoch, the batch sequence number. A node remembers the epoch that created it: that
 * epoch changes it in place, later ones copy it first, so a node is copied at most once per epoch. Epochs never
 * go backwards. {@link #snapshot()} ends the current epoch: the next update must use a greater one, so the
 * snapshot's nodes are never written again. {@link #restore} reinstates a snapshot; updates then continue with
 * any epoch greater than the snapshot's, even one already used on the discarded branch, since none of that
 * branch's nodes is reachable any more. Both are O(1). Violations are rejected.
 *
 * <p>Not thread-safe, not even for reads: lookups and digests share one {@code MessageDigest}, and digests are
 * cached in nodes shared with snapshots. The replicated collection above serialises all calls, including
 * restores.
 */
public final class CanonicalTrie<K, V> implements Iterable<Map.Entry<K, V>> {
    /** The most entries a bucket above depth 16 holds. */
    public static final int BUCKET_MAX = 8;

    /** Depth, in nibbles, of the collision buckets. */
    public static final int MAX_DEPTH = Prefix.MAX_DEPTH;

    private final TrieCodec<K, V> codec;
    private final ToLongFunction<byte[]> keyHasher;
    private final NodeHasher<K, V> hasher;
    private final TrieWriter<K, V> writer = new TrieWriter<>();
    private Node<K, V> root;
    private long rootEpoch = Long.MIN_VALUE;
    private long lastEpoch = Long.MIN_VALUE;
    private boolean sealed;
    private int modCount;

    public CanonicalTrie(TrieCodec<K, V> codec) {
        this(codec, null);
    }

    /** With {@code keyHasher} in place of the SHA-256 key hash, so that tests can force collisions. */
    CanonicalTrie(TrieCodec<K, V> codec, ToLongFunction<byte[]> keyHasher) {
        this.codec = Objects.requireNonNull(codec, "codec");
        this.keyHasher = keyHasher;
        this.hasher = new NodeHasher<>(codec);
    }

    /**
     * A key with its canonical bytes and key hash, computed once, for several operations on the same key
     * (a look-up, then a removal): each operation that takes it skips the codec and the SHA-256 of the key.
     * Valid only with the trie that made it.
     */
    public static final class Probe<K> {
        private final CanonicalTrie<K, ?> trie;
        private final K key;
        private final byte[] encodedKey;
        private final long keyHash;

        private Probe(CanonicalTrie<K, ?> trie, K key, byte[] encodedKey, long keyHash) {
            this.trie = trie;
            this.key = key;
            this.encodedKey = encodedKey;
            this.keyHash = keyHash;
        }

        /** The key probed. */
        public K key() {
            return key;
        }
    }

    /** Encodes and hashes {@code key} once, for the operations below that take a {@link Probe}. */
    public Probe<K> probe(K key) {
        byte[] encodedKey = encode(key);
        return new Probe<>(this, key, encodedKey, keyHash(encodedKey));
    }

    public V get(K key) {
        return getAt(probe(key));
    }

    /** The value of the probed key, or null. */
    public V getAt(Probe<K> probe) {
        TrieEntry<K, V> entry = find(own(probe));
        return entry == null ? null : entry.getValue();
    }

    public boolean containsKey(K key) {
        return containsAt(probe(key));
    }

    /** Whether the probed key is present. */
    public boolean containsAt(Probe<K> probe) {
        return find(own(probe)) != null;
    }

    public int size() {
        return Node.sizeOf(root);
    }

    public boolean isEmpty() {
        return root == null;
    }

    /** Maps {@code key} to {@code value} in {@code epoch}; returns the previous value, or null. */
    public V put(K key, V value, long epoch) {
        byte[] encodedKey = encode(key);
        requireValue(key, value);
        TrieEntry<K, V> entry = new TrieEntry<>(keyHash(encodedKey), encodedKey, key, value, epoch);
        beginUpdate(epoch);
        setRoot(writer.put(root, entry, epoch), epoch);
        return writer.displaced();
    }

    /** Removes {@code key} in {@code epoch}; returns the removed value, or null if it was absent. */
    public V remove(K key, long epoch) {
        return removeAt(probe(key), epoch);
    }

    /** Removes the probed key in {@code epoch}; returns the removed value, or null if it was absent. */
    public V removeAt(Probe<K> probe, long epoch) {
        own(probe);
        beginUpdate(epoch);
        setRoot(writer.remove(root, probe.keyHash, probe.encodedKey, epoch), epoch);
        return writer.displaced();
    }

    /**
     * Replaces the contents of a key-hash range: removes every entry whose key hash starts with the
     * {@code depth} leading nibbles of {@code prefix} and inserts {@code entries}, all of which must lie in that
     * range. Applies a {@link Bucket} from {@link #changedSince}. Costs O(depth + m log m + r) for m given and r
     * removed entries.
     *
     * @throws IllegalArgumentException if the range is malformed, an entry lies outside it or is null, a key
     *     repeats, or the epoch is not allowed
     */
    public void replaceRange(long prefix, int depth, List<? extends Map.Entry<K, V>> entries, long epoch) {
        Prefix.check(prefix, depth);
        Objects.requireNonNull(entries, "entries");
        TrieEntry<K, V>[] sorted = TrieEntry.newArray(entries.size());
        int count = 0;
        for (Map.Entry<K, V> given : entries) {
            Objects.requireNonNull(given, "entries must not contain null");
            K key = given.getKey();
            byte[] encodedKey = encode(key);
            requireValue(key, given.getValue());
            long keyHash = keyHash(encodedKey);
            if (!Prefix.matches(keyHash, prefix, depth)) {
                throw new IllegalArgumentException("key " + key + " has key hash " + Prefix.hex(keyHash)
                        + ", outside the range " + Prefix.hex(prefix) + "/" + depth + " being replaced");
            }
            sorted[count++] = new TrieEntry<>(keyHash, encodedKey, key, given.getValue(), epoch);
        }
        Arrays.sort(sorted, 0, count, TrieEntry::compare);
        for (int i = 1; i < count; i++) {
            if (TrieEntry.compare(sorted[i - 1], sorted[i]) == 0) {
                throw new IllegalArgumentException("key " + sorted[i].getKey() + " appears twice in the entries");
            }
        }
        beginUpdate(epoch);
        setRoot(writer.replace(root, prefix, depth, sorted, epoch), epoch);
    }

    /** This version in O(1). Ends the current epoch: later updates must use a greater one. */
    public TrieSnapshot<K, V> snapshot() {
        sealed = true;
        return new TrieSnapshot<>(this, root, rootEpoch, lastEpoch);
    }

    /** Reinstates {@code snapshot} in O(1); later updates must use an epoch greater than its own. */
    public void restore(TrieSnapshot<K, V> snapshot) {
        if (snapshot.owner != this) {
            throw new IllegalArgumentException("the snapshot belongs to another trie; restore it there");
        }
        root = snapshot.root;
        rootEpoch = snapshot.rootEpoch;
        lastEpoch = snapshot.epoch();
        sealed = true;
        modCount++;
    }

    /** The root digest; hashes only the nodes created or changed since the last call. */
    public Digest rootDigest() {
        return root == null ? Digest.ZERO : Digest.of(hasher.digest(root));
    }

    /**
     * The ranges whose contents may differ from those at the end of epoch {@code seq} of this trie's history
     * (the epochs that led to the current version, without branches discarded by a restore). Replacing each
     * returned range, with {@link #replaceRange}, on any trie whose contents equal this one's at {@code seq}
     * gives it the current contents, hence the current digest. The ranges are disjoint and in canonical order.
     *
     * <p>Why this is correct. A node is written only in the epoch stamped on it and never moves: it keeps the
     * prefix and depth it was created at, and splits and collapses create new nodes. A node that leaves the trie
     * comes back only through a restore, which also switches the history. So a node in the current trie stamped
     * at or before {@code seq} held the same range with the same entries at the end of {@code seq}, and the
     * receiver holds exactly those entries there: nothing to send. A branch also stamps each slot with the epoch
     * that last assigned it, so an empty slot stamped at or before {@code seq} was already empty. Everything
     * else is sent whole: each bucket stamped after {@code seq} and each empty slot (or empty root) assigned
     * after it. These ranges and the skipped ones cover the key space without overlap. Hence: an insert, update
     * or remove sends the bucket it touched; a remove that empties a bucket sends its empty range; a split sends
     * all 16 ranges of the new branch, which also clears the receiver's old, larger bucket; a collapse sends the
     * new bucket, whose range covers the whole former branch. The receiver's own epochs are never consulted.
     *
     * <p>Cost: the walk enters only nodes stamped after {@code seq}, which lie on the paths of the changes, and
     * returns at most 16 ranges per such branch; updating k existing keys returns at most k buckets, whatever
     * the size of the trie. {@code seq} must lie in this trie's history, at or before its current epoch.
     */
    public List<Bucket<K, V>> changedSince(long seq) {
        List<Bucket<K, V>> changes = new ArrayList<>();
        if (root == null) {
            if (rootEpoch > seq) {
                changes.add(new Bucket<>(0L, 0, List.of()));
            }
        } else if (root.epoch > seq) {
            collectChanges(root, 0L, 0, seq, changes);
        }
        return changes;
    }

    /**
     * The epoch of the write that gave an entry of this trie (from iteration or {@link #changedSince}) its
     * value: a receiver at any later version already holds that value. {@link Long#MAX_VALUE} for an
     * entry that is not the trie's own.
     */
    public static long lastModified(Map.Entry<?, ?> entry) {
        return entry instanceof TrieEntry<?, ?> own ? own.epoch : Long.MAX_VALUE;
    }

    /** Calls {@code action} for each entry in canonical order. */
    public void forEach(BiConsumer<? super K, ? super V> action) {
        Objects.requireNonNull(action, "action");
        if (root != null) {
            int expected = modCount;
            visit(root, action, expected);
        }
    }

    /** Entries in canonical order; read-only, and fails fast if the trie is updated or restored meanwhile. */
    @Override
    public Iterator<Map.Entry<K, V>> iterator() {
        return new EntryIterator<>(this, root, modCount);
    }

    @Override
    public String toString() {
        return "CanonicalTrie[" + size() + " entries, epoch " + lastEpoch + "]";
    }

    int modCount() {
        return modCount;
    }

    Node<K, V> root() {
        return root;
    }

    private void visit(Node<K, V> node, BiConsumer<? super K, ? super V> action, int expected) {
        if (node instanceof Branch<K, V> branch) {
            for (Node<K, V> child : branch.children) {
                if (child != null) {
                    visit(child, action, expected);
                }
            }
            return;
        }
        Leaf<K, V> leaf = (Leaf<K, V>) node;
        for (int i = 0; i < leaf.count; i++) {
            action.accept(leaf.entries[i].getKey(), leaf.entries[i].getValue());
            if (modCount != expected) {
                throw new ConcurrentModificationException("the trie changed during forEach");
            }
        }
    }

    private static <K, V> void collectChanges(
            Node<K, V> node, long prefix, int depth, long seq, List<Bucket<K, V>> changes) {
        if (node instanceof Leaf<K, V> leaf) {
            changes.add(new Bucket<>(prefix, depth, List.<Map.Entry<K, V>>of(Arrays.copyOf(leaf.entries, leaf.count))));
            return;
        }
        Branch<K, V> branch = (Branch<K, V>) node;
        for (int slot = 0; slot < Branch.SLOTS; slot++) {
            Node<K, V> child = branch.children[slot];
            long childPrefix = Prefix.child(prefix, depth, slot);
            if (child == null) {
                if (branch.slotEpochs[slot] > seq) {
                    changes.add(new Bucket<>(childPrefix, depth + 1, List.of()));
                }
            } else if (child.epoch > seq) {
                collectChanges(child, childPrefix, depth + 1, seq, changes);
            }
        }
    }

    private Probe<K> own(Probe<K> probe) {
        if (Objects.requireNonNull(probe, "probe").trie != this) {
            throw new IllegalArgumentException("the probe of key " + probe.key + " was made by another trie");
        }
        return probe;
    }

    private TrieEntry<K, V> find(Probe<K> probe) {
        long keyHash = probe.keyHash;
        Node<K, V> node = root;
        int depth = 0;
        while (node instanceof Branch<K, V> branch) {
            node = branch.children[Prefix.nibble(keyHash, depth++)];
        }
        if (node == null) {
            return null;
        }
        Leaf<K, V> leaf = (Leaf<K, V>) node;
        int index = leaf.find(keyHash, probe.encodedKey);
        return index >= 0 ? leaf.entries[index] : null;
    }

    private byte[] encode(K key) {
        Objects.requireNonNull(key, "key must not be null");
        byte[] encodedKey = codec.encodeKey(key);
        if (encodedKey == null) {
            throw new IllegalStateException("the codec encoded key " + key + " as null");
        }
        return encodedKey;
    }

    private static void requireValue(Object key, Object value) {
        if (value == null) {
            throw new NullPointerException("value for key " + key + " must not be null; remove the key instead");
        }
    }

    private long keyHash(byte[] encodedKey) {
        return keyHasher == null ? hasher.keyHash(encodedKey) : keyHasher.applyAsLong(encodedKey);
    }

    /** The smallest epoch the next update may use. */
    public long writableEpoch() {
        return sealed ? lastEpoch + 1 : lastEpoch;
    }

    private void beginUpdate(long epoch) {
        if (epoch < lastEpoch || (sealed && epoch == lastEpoch)) {
            throw new IllegalArgumentException("epoch " + epoch + " must be "
                    + (sealed ? "greater than " : "at least ") + lastEpoch
                    + (sealed ? ", the epoch sealed by the last snapshot or restore" : ", the last epoch written"));
        }
        lastEpoch = epoch;
        sealed = false;
        modCount++;
    }

    private void setRoot(Node<K, V> newRoot, long epoch) {
        if (newRoot != root) {
            root = newRoot;
            rootEpoch = epoch;
        }
    }
}
