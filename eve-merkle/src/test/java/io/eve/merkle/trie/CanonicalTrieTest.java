package io.eve.merkle.trie;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.merkle.Digest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.Test;

class CanonicalTrieTest {
    /** Key "kN" hashes to N in the top nibble, so keys k0 to k15 land in different root slots. */
    private static final ToLongFunction<byte[]> TOP_NIBBLE =
            bytes -> Long.parseLong(new String(bytes, StandardCharsets.UTF_8).substring(1)) << 60;

    private static final ToLongFunction<byte[]> SAME_HASH = bytes -> 0x5L;

    private final StringCodec codec = new StringCodec();

    @Test
    void shouldStartEmptyWithZeroDigest() {
        CanonicalTrie<String, String> trie = new CanonicalTrie<>(codec);

        assertThat(trie.size()).isZero();
        assertThat(trie.isEmpty()).isTrue();
        assertThat(trie.rootDigest()).isEqualTo(Digest.ZERO);
        assertThat(trie.iterator().hasNext()).isFalse();
        assertThat(trie.get("absent")).isNull();
    }

    @Test
    void shouldReturnPreviousValuesFromPutAndRemove() {
        CanonicalTrie<String, String> trie = new CanonicalTrie<>(codec);

        assertThat(trie.put("a", "1", 1)).isNull();
        assertThat(trie.put("a", "2", 1)).isEqualTo("1");
        assertThat(trie.get("a")).isEqualTo("2");
        assertThat(trie.containsKey("a")).isTrue();
        assertThat(trie.remove("b", 2)).isNull();
        assertThat(trie.remove("a", 2)).isEqualTo("2");
        assertThat(trie.containsKey("a")).isFalse();
        assertThat(trie.size()).isZero();
        assertThat(trie.rootDigest()).isEqualTo(Digest.ZERO);
    }

    @Test
    void shouldAnswerThroughAProbeAsThroughItsKeyAndHashTheKeyOnce() {
        List<String> hashed = new ArrayList<>();
        CanonicalTrie<String, String> trie = new CanonicalTrie<>(codec, bytes -> {
            hashed.add(new String(bytes, StandardCharsets.UTF_8));
            return TOP_NIBBLE.applyAsLong(bytes);
        });
        trie.put("k1", "one", 1);
        trie.put("k2", "two", 1);
        hashed.clear();

        CanonicalTrie.Probe<String> present = trie.probe("k1");
        CanonicalTrie.Probe<String> absent = trie.probe("k3");
        assertThat(present.key()).isEqualTo("k1");
        assertThat(trie.containsAt(present)).isTrue();
        assertThat(trie.getAt(present)).isEqualTo("one");
        assertThat(trie.containsAt(absent)).isFalse();
        assertThat(trie.getAt(absent)).isNull();
        assertThat(trie.removeAt(absent, 2)).isNull();
        assertThat(trie.removeAt(present, 2)).isEqualTo("one");
        assertThat(trie.containsAt(present)).isFalse();
        assertThat(hashed).containsExactly("k1", "k3");

        CanonicalTrie<String, String> same = new CanonicalTrie<>(codec, TOP_NIBBLE);
        same.put("k2", "two", 1);
        assertThat(trie.rootDigest()).isEqualTo(same.rootDigest());
    }

    @Test
    void shouldRefuseAProbeMadeByAnotherTrie() {
        CanonicalTrie<String, String> trie = new CanonicalTrie<>(codec);
        CanonicalTrie<String, String> other = new CanonicalTrie<>(codec);
        other.put("a", "1", 1);
        CanonicalTrie.Probe<String> foreign = other.probe("a");

        assertThatThrownBy(() -> trie.containsAt(foreign))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key a")
                .hasMessageContaining("another trie");
        assertThatThrownBy(() -> trie.removeAt(foreign, 2)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldSplitBucketWhenItGrowsPastTheLimit() {
        CanonicalTrie<String, String> trie = new CanonicalTrie<>(codec, TOP_NIBBLE);
        for (int i = 0; i < CanonicalTrie.BUCKET_MAX; i++) {
            trie.put("k" + i, "v", 1);
        }
        assertThat(trie.root()).isInstanceOf(Leaf.class);

        trie.put("k" + CanonicalTrie.BUCKET_MAX, "v", 1);

        Branch<String, String> root = (Branch<String, String>) trie.root();
        assertThat(root.count).isEqualTo(CanonicalTrie.BUCKET_MAX + 1);
        for (int slot = 0; slot < Branch.SLOTS; slot++) {
            assertThat(root.children[slot] == null).isEqualTo(slot > CanonicalTrie.BUCKET_MAX);
        }
    }

    @Test
    void shouldCollapseBackToTheSameBucketWhenTheCountDropsToTheLimit() {
        CanonicalTrie<String, String> trie = new CanonicalTrie<>(codec, TOP_NIBBLE);
        for (int i = 0; i < CanonicalTrie.BUCKET_MAX; i++) {
            trie.put("k" + i, "v", 1);
        }
        Digest asBucket = trie.rootDigest();
        trie.put("k9", "v", 2);

        trie.remove("k9", 3);

        assertThat(trie.root()).isInstanceOf(Leaf.class);
        assertThat(((Leaf<String, String>) trie.root()).count).isEqualTo(CanonicalTrie.BUCKET_MAX);
        assertThat(trie.rootDigest()).isEqualTo(asBucket);
    }

    @Test
    void shouldKeepCollidingKeysInOneBucketAtDepthSixteen() {
        CanonicalTrie<String, String> trie = new CanonicalTrie<>(codec, SAME_HASH);
        for (int i = 19; i >= 0; i--) {
            trie.put("c" + i, "v" + i, 1);
        }

        Node<String, String> node = trie.root();
        int depth = 0;
        while (node instanceof Branch<String, String> branch) {
            assertThat(branch.count).isEqualTo(20);
            node = branch.children[Prefix.nibble(0x5L, depth++)];
        }
        assertThat(depth).isEqualTo(CanonicalTrie.MAX_DEPTH);
        assertThat(((Leaf<String, String>) node).count).isEqualTo(20);
        List<String> keys = new ArrayList<>();
        trie.forEach((key, value) -> keys.add(key));
        assertThat(keys).isSortedAccordingTo(String::compareTo);
        assertThat(trie.get("c7")).isEqualTo("v7");
    }

    @Test
    void shouldCollapseTheWholeChainWhenACollisionBucketShrinks() {
        CanonicalTrie<String, String> trie = new CanonicalTrie<>(codec, SAME_HASH);
        for (int i = 0; i < 12; i++) {
            trie.put("c" + i, "v", 1);
        }

        for (int i = 0; i < 4; i++) {
            trie.remove("c" + i, 2);
        }

        assertThat(trie.root()).isInstanceOf(Leaf.class);
        assertThat(trie.size()).isEqualTo(CanonicalTrie.BUCKET_MAX);
        CanonicalTrie<String, String> fresh = new CanonicalTrie<>(new StringCodec(), SAME_HASH);
        for (int i = 11; i >= 4; i--) {
            fresh.put("c" + i, "v", 0);
        }
        assertThat(trie.rootDigest()).isEqualTo(fresh.rootDigest());
    }

    @Test
    void shouldCopyEachNodeAtMostOncePerEpoch() {
        CanonicalTrie<String, String> trie = new CanonicalTrie<>(codec);
        for (int i = 0; i < 500; i++) {
            trie.put("key-" + i, "v", 1);
        }
        TrieSnapshot<String, String> snapshot = trie.snapshot();

        trie.put("key-1", "w", 2);
        Node<String, String> copiedRoot = trie.root();
        trie.put("key-2", "w", 2);
        trie.remove("key-3", 2);

        assertThat(copiedRoot).isNotSameAs(snapshot.root);
        assertThat(trie.root()).isSameAs(copiedRoot);
        assertThat(copiedRoot.epoch).isEqualTo(2);
        assertThat(snapshot.root.epoch).isEqualTo(1);
    }

    @Test
    void shouldDropCachedDigestsWhenUpdatingInTheSameEpochAfterHashing() {
        CanonicalTrie<String, String> trie = new CanonicalTrie<>(codec);
        for (int i = 0; i < 50; i++) {
            trie.put("key-" + i, "v", 1);
        }
        trie.rootDigest();

        trie.put("key-7", "w", 1);
        trie.remove("key-8", 1);
        trie.put("key-50", "v", 1);

        Map<String, String> model = new HashMap<>();
        trie.forEach(model::put);
        assertThat(model).hasSize(50).containsEntry("key-7", "w").doesNotContainKey("key-8");
        assertThat(trie.rootDigest()).isEqualTo(TrieHarness.digestOf(HashMode.SHA256, model));
    }

    @Test
    void shouldEmptyARangeThatHoldsABranch() {
        // Key "kN" hashes to N in the top byte: k0 .. k15 form a branch under root slot 0, k16 .. k31 under slot 1.
        ToLongFunction<byte[]> topByte =
                bytes -> Long.parseLong(new String(bytes, StandardCharsets.UTF_8).substring(1)) << 56;
        CanonicalTrie<String, String> trie = new CanonicalTrie<>(codec, topByte);
        CanonicalTrie<String, String> expected = new CanonicalTrie<>(new StringCodec(), topByte);
        for (int i = 0; i < 32; i++) {
            trie.put("k" + i, "v", 1);
            if (i >= 16) {
                expected.put("k" + i, "v", 1);
            }
        }
        assertThat(((Branch<String, String>) trie.root()).children[0]).isInstanceOf(Branch.class);

        trie.replaceRange(0L, 1, List.of(), 2);

        assertThat(trie.size()).isEqualTo(16);
        assertThat(trie.containsKey("k3")).isFalse();
        assertThat(trie.rootDigest()).isEqualTo(expected.rootDigest());
    }

    @Test
    void shouldRehashOnlyTheChangedBucket() {
        CanonicalTrie<String, String> trie = new CanonicalTrie<>(codec);
        for (int i = 0; i < 2000; i++) {
            trie.put("key-" + i, "v", 1);
        }
        trie.rootDigest();
        codec.valuesHashed = 0;

        trie.put("key-5", "w", 2);
        trie.rootDigest();

        assertThat(codec.valuesHashed).isBetween(1, CanonicalTrie.BUCKET_MAX);
    }

    @Test
    void shouldIterateInCanonicalOrderAndFailFast() {
        CanonicalTrie<String, String> trie = new CanonicalTrie<>(codec);
        for (int i = 0; i < 300; i++) {
            trie.put("key-" + i, "v" + i, 1);
        }
        List<Map.Entry<String, String>> expected = new ArrayList<>();
        trie.forEach((key, value) -> expected.add(Map.entry(key, value)));
        Map<String, String> model = new HashMap<>();
        expected.forEach(entry -> model.put(entry.getKey(), entry.getValue()));
        assertThat(expected).isEqualTo(StringCodec.canonical(model, StringCodec::sha256KeyHash));

        Iterator<Map.Entry<String, String>> iterator = trie.iterator();
        List<Map.Entry<String, String>> iterated = new ArrayList<>();
        iterator.forEachRemaining(iterated::add);
        assertThat(iterated).isEqualTo(expected);
        assertThatThrownBy(iterator::next).isInstanceOf(NoSuchElementException.class);

        Iterator<Map.Entry<String, String>> stale = trie.iterator();
        stale.next();
        trie.put("key-0", "changed", 1);
        assertThatThrownBy(stale::next).isInstanceOf(ConcurrentModificationException.class);
        assertThatThrownBy(() -> trie.iterator().next().setValue("x"))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void shouldRejectNullKeysAndValues() {
        CanonicalTrie<String, String> trie = new CanonicalTrie<>(codec);

        assertThatThrownBy(() -> trie.put(null, "v", 1))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("key must not be null");
        assertThatThrownBy(() -> trie.put("k", null, 1))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("value for key k must not be null; remove the key instead");
        assertThatThrownBy(() -> trie.get(null)).hasMessage("key must not be null");
        assertThat(trie.size()).isZero();
    }

    @Test
    void shouldRejectEntriesOutsideTheReplacedRangeNamingTheKey() {
        CanonicalTrie<String, String> trie = new CanonicalTrie<>(codec, TOP_NIBBLE);
        trie.put("k1", "v", 1);

        assertThatThrownBy(() -> trie.replaceRange(3L << 60, 1, List.of(Map.entry("k3", "a"), Map.entry("k4", "b")), 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "key k4 has key hash 4000000000000000, outside the range 3000000000000000/1 being replaced");
        assertThat(trie.get("k1")).isEqualTo("v");
        assertThat(trie.containsKey("k3")).isFalse();
    }

    @Test
    void shouldRejectMalformedRangesAndDuplicateKeys() {
        CanonicalTrie<String, String> trie = new CanonicalTrie<>(codec, TOP_NIBBLE);

        assertThatThrownBy(() -> trie.replaceRange(0, 17, List.of(), 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("depth must be between 0 and 16 nibbles, got 17");
        assertThatThrownBy(() -> trie.replaceRange(0x0100000000000000L, 1, List.of(), 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("prefix 0100000000000000 has bits set past its 1 nibbles; expected the unused low bits"
                        + " to be zero");
        assertThatThrownBy(() -> trie.replaceRange(0, 0, List.of(Map.entry("k2", "a"), Map.entry("k2", "b")), 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("key k2 appears twice in the entries");
        assertThat(new Bucket<String, String>(1L, 16, List.of()).depth()).isEqualTo(16);
        assertThatThrownBy(() -> new Bucket<String, String>(1L, 15, List.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldRejectEpochsThatGoBackwardsOrReuseASealedEpoch() {
        CanonicalTrie<String, String> trie = new CanonicalTrie<>(codec);
        trie.put("a", "1", 5);
        trie.put("b", "1", 5);

        assertThatThrownBy(() -> trie.put("c", "1", 4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("epoch 4 must be at least 5, the last epoch written");
        trie.snapshot();
        assertThatThrownBy(() -> trie.remove("a", 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("epoch 5 must be greater than 5, the epoch sealed by the last snapshot or restore");
        assertThat(trie.get("a")).isEqualTo("1");
        trie.put("c", "1", 6);
    }

    @Test
    void shouldRejectASnapshotOfAnotherTrie() {
        CanonicalTrie<String, String> trie = new CanonicalTrie<>(codec);
        TrieSnapshot<String, String> foreign = new CanonicalTrie<>(codec).snapshot();

        assertThatThrownBy(() -> trie.restore(foreign))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the snapshot belongs to another trie; restore it there");
    }
}
