package io.eve.merkle.trie;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.merkle.Digest;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SnapshotTest {
    private final StringCodec codec = new StringCodec();
    private final CanonicalTrie<String, String> trie = new CanonicalTrie<>(codec);
    private final Map<String, String> model = new HashMap<>();

    @Test
    void shouldKeepSnapshotsIntactWhenARestoredBranchReusesAnEpochNumber() {
        for (int epoch = 1; epoch <= 5; epoch++) {
            for (int i = 0; i < 200; i++) {
                put("key-" + (epoch * 37 + i) % 400, "e" + epoch, epoch);
            }
        }
        Map<String, String> atFive = new HashMap<>(model);
        TrieSnapshot<String, String> five = trie.snapshot();
        // Epoch 6, first time: many updates in place, then a snapshot of that branch.
        for (int i = 0; i < 300; i++) {
            put("key-" + i, "first-six", 6);
            remove("key-" + (i + 100), 6);
        }
        Map<String, String> firstSix = new HashMap<>(model);
        Digest firstSixDigest = trie.rootDigest();
        TrieSnapshot<String, String> discarded = trie.snapshot();

        // Roll back to 5 and run epoch 6 again, differently, without hashing in between.
        trie.restore(five);
        model.clear();
        model.putAll(atFive);
        for (int i = 0; i < 300; i++) {
            put("key-" + (399 - i), "second-six", 6);
            remove("key-" + (i * 7 % 400), 6);
        }
        Map<String, String> secondSix = new HashMap<>(model);
        TrieSnapshot<String, String> kept = trie.snapshot();
        put("key-1", "seven", 7);

        assertHolds(discarded, firstSix);
        assertThat(trie.rootDigest()).isEqualTo(firstSixDigest);
        assertHolds(five, atFive);
        assertHolds(kept, secondSix);
    }

    @Test
    void shouldLeaveAnUnhashedSnapshotUnchangedByLaterUpdates() {
        for (int i = 0; i < 100; i++) {
            put("key-" + i, "a", 1);
        }
        Map<String, String> atOne = new HashMap<>(model);
        TrieSnapshot<String, String> one = trie.snapshot();

        for (int i = 0; i < 100; i += 3) {
            put("key-" + i, "b", 2);
            remove("key-" + (i + 1), 2);
        }
        trie.rootDigest();

        assertThat(one.size()).isEqualTo(100);
        assertThat(one.epoch()).isEqualTo(1);
        assertHolds(one, atOne);
    }

    @Test
    void shouldSealTheRestoredEpoch() {
        put("a", "1", 3);
        TrieSnapshot<String, String> three = trie.snapshot();
        put("a", "2", 4);

        trie.restore(three);

        assertThatThrownBy(() -> trie.put("a", "3", 3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("epoch 3 must be greater than 3, the epoch sealed by the last snapshot or restore");
        trie.put("a", "4", 4);
        assertHolds(three, Map.of("a", "1"));
    }

    private void assertHolds(TrieSnapshot<String, String> snapshot, Map<String, String> expected) {
        trie.restore(snapshot);
        TrieHarness.checkContents(trie, expected, HashMode.SHA256);
        assertThat(trie.rootDigest()).isEqualTo(TrieHarness.digestOf(HashMode.SHA256, expected));
    }

    private void put(String key, String value, long epoch) {
        trie.put(key, value, epoch);
        model.put(key, value);
    }

    private void remove(String key, long epoch) {
        trie.remove(key, epoch);
        model.remove(key);
    }
}
