package io.eve.merkle.trie;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ChangedSinceTest {
    private static final int ENTRIES = 100_000;

    private CanonicalTrie<String, String> sender;
    private CanonicalTrie<String, String> receiver;

    private void fillBothWithTheSameContents() {
        sender = new CanonicalTrie<>(new StringCodec());
        receiver = new CanonicalTrie<>(new StringCodec());
        for (int i = 0; i < ENTRIES; i++) {
            sender.put("key-" + i, "v", 1);
            receiver.put("key-" + (ENTRIES - 1 - i), "v", 70);
        }
        sender.snapshot();
    }

    @Test
    void shouldShipOneBucketPerUpdatedKeyWhateverTheTrieSize() {
        fillBothWithTheSameContents();
        sender.put("key-10", "changed", 2);
        sender.put("key-20000", "changed", 2);
        sender.put("key-99999", "changed", 3);

        List<Bucket<String, String>> changes = sender.changedSince(1);

        assertThat(changes).hasSize(3);
        assertThat(changes).allSatisfy(bucket -> assertThat(bucket.entries()).hasSizeLessThanOrEqualTo(8));
        assertThat(sender.changedSince(2)).hasSize(1);
        assertThat(sender.changedSince(3)).isEmpty();
        assertCatchesUp(changes);
    }

    @Test
    void shouldShipFewBucketsForInsertsAndRemoves() {
        fillBothWithTheSameContents();
        sender.put("new-1", "n", 2);
        sender.put("new-2", "n", 2);
        sender.remove("key-5", 2);
        sender.remove("key-6", 2);
        sender.remove("key-7", 2);

        List<Bucket<String, String>> changes = sender.changedSince(1);

        // At worst one split (16 ranges) per insert and one empty range per remove.
        assertThat(changes.size()).isBetween(2, 2 * Branch.SLOTS + 3);
        assertCatchesUp(changes);
    }

    @Test
    void shouldShipTheEmptyRootWhenEverythingIsRemoved() {
        CanonicalTrie<String, String> small = new CanonicalTrie<>(new StringCodec());
        small.put("a", "1", 1);
        small.snapshot();
        small.remove("a", 2);

        assertThat(small.changedSince(1)).containsExactly(new Bucket<>(0L, 0, List.of()));
        assertThat(small.changedSince(2)).isEmpty();
    }

    private void assertCatchesUp(List<Bucket<String, String>> changes) {
        for (Bucket<String, String> bucket : changes) {
            receiver.replaceRange(bucket.prefix(), bucket.depth(), bucket.entries(), 71);
        }
        assertThat(receiver.size()).isEqualTo(sender.size());
        assertThat(receiver.rootDigest()).isEqualTo(sender.rootDigest());
    }
}
