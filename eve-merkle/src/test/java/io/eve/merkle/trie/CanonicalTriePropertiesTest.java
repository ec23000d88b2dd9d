package io.eve.merkle.trie;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.merkle.Digest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

class CanonicalTriePropertiesTest {

    @Property(tries = 300)
    void shouldMatchRebuildAndKeepSnapshotsAcrossRandomHistories(
            @ForAll("histories") List<Op> ops, @ForAll HashMode mode) {
        TrieHarness harness = new TrieHarness(mode);

        harness.run(ops);

        harness.checkAgainstModel();
        harness.checkSnapshotsUnchanged();
    }

    @Property(tries = 200)
    void shouldNotDependOnUpdateOrderOrHistory(
            @ForAll @Size(max = 120) Map<@IntRange(max = 400) Integer, @IntRange(max = 5) Integer> contents,
            @ForAll @Size(max = 60) List<@IntRange(max = 400) Integer> transientKeys,
            @ForAll long seed,
            @ForAll HashMode mode) {
        Map<String, String> model = new HashMap<>();
        contents.forEach((key, value) -> model.put(TrieHarness.key(key), "value-" + value));

        CanonicalTrie<String, String> oneEpoch = TrieHarness.rebuild(mode, model, seed);
        CanonicalTrie<String, String> churned = churn(mode, model, transientKeys, new Random(~seed));

        assertThat(churned.rootDigest()).isEqualTo(oneEpoch.rootDigest());
        assertThat(list(churned)).isEqualTo(list(oneEpoch));
        TrieHarness.checkContents(churned, model, mode);
    }

    @Property(tries = 200)
    void shouldGiveDifferentDigestsToDifferentContents(
            @ForAll @Size(min = 1, max = 80) Map<@IntRange(max = 300) Integer, @IntRange(max = 5) Integer> contents,
            @ForAll @IntRange(max = 1000) int pick,
            @ForAll HashMode mode) {
        Map<String, String> model = new HashMap<>();
        contents.forEach((key, value) -> model.put(TrieHarness.key(key), "value-" + value));
        List<String> keys = new ArrayList<>(model.keySet());
        Collections.sort(keys);
        String chosen = keys.get(pick % keys.size());
        Digest original = TrieHarness.digestOf(mode, model);

        Map<String, String> changedValue = new HashMap<>(model);
        changedValue.put(chosen, model.get(chosen) + "!");
        Map<String, String> removed = new HashMap<>(model);
        removed.remove(chosen);
        Map<String, String> added = new HashMap<>(model);
        added.put(TrieHarness.key(1000 + pick), "value-0");

        assertThat(TrieHarness.digestOf(mode, changedValue)).isNotEqualTo(original);
        assertThat(TrieHarness.digestOf(mode, removed)).isNotEqualTo(original);
        assertThat(TrieHarness.digestOf(mode, added)).isNotEqualTo(original);
    }

    @Property(tries = 250)
    void shouldReproduceCurrentStateFromChangesSinceSeq(
            @ForAll("histories") List<Op> before,
            @ForAll("histories") List<Op> after,
            @ForAll HashMode mode,
            @ForAll long receiverSeed) {
        TrieHarness sender = new TrieHarness(mode);
        sender.run(before);
        TrieSnapshot<String, String> atSeq = sender.trie.snapshot();
        long seq = atSeq.epoch();
        Map<String, String> modelAtSeq = new HashMap<>(sender.model);
        // From here on, restores may only go back to versions that descend from the state at seq.
        sender.saved.clear();
        sender.saved.add(new TrieHarness.Saved(atSeq, modelAtSeq));
        sender.epoch = seq + 1;
        sender.run(after);
        Map<String, String> current = new HashMap<>(sender.model);
        Digest currentDigest = sender.trie.rootDigest();

        List<Bucket<String, String>> changes = sender.trie.changedSince(seq);

        assertDisjoint(changes);
        // A receiver with the same contents at seq but its own history, shape changes and epochs.
        CanonicalTrie<String, String> receiver =
                churn(mode, modelAtSeq, List.of(3, 17, 40, 41, 99, 123, 140), new Random(receiverSeed));
        long receiverEpoch = 1_000_000;
        for (Bucket<String, String> bucket : changes) {
            receiver.replaceRange(bucket.prefix(), bucket.depth(), bucket.entries(), receiverEpoch);
        }
        TrieHarness.checkContents(receiver, current, mode);
        assertThat(receiver.rootDigest()).isEqualTo(currentDigest);
        // The sender itself, rolled back to seq, catches up the same way.
        sender.trie.restore(atSeq);
        for (Bucket<String, String> bucket : changes) {
            sender.trie.replaceRange(bucket.prefix(), bucket.depth(), bucket.entries(), seq + 1);
        }
        TrieHarness.checkContents(sender.trie, current, mode);
        assertThat(sender.trie.rootDigest()).isEqualTo(currentDigest);
    }

    @Provide
    Arbitrary<List<Op>> histories() {
        Arbitrary<Integer> keys = Arbitraries.integers().between(0, TrieHarness.KEYS - 1);
        Arbitrary<Integer> values = Arbitraries.integers().between(0, 3);
        Arbitrary<Op> put = Combinators.combine(keys, values).as(Op.Put::new);
        Arbitrary<Op> remove = keys.map(Op.Remove::new);
        Arbitrary<Op> nextEpoch = Arbitraries.just(new Op.NextEpoch());
        Arbitrary<Op> hash = Arbitraries.just(new Op.Hash());
        Arbitrary<Op> snapshot = Arbitraries.of(true, false).map(Op.Snapshot::new);
        Arbitrary<Op> restore = Arbitraries.integers().between(0, 1000).map(Op.Restore::new);
        Arbitrary<Op> replace = Combinators.combine(
                        keys,
                        Arbitraries.integers().between(0, 4),
                        Arbitraries.integers().between(0, 1),
                        values)
                .as(Op.Replace::new);
        return Arbitraries.frequencyOf(
                        Tuple.of(30, put),
                        Tuple.of(20, remove),
                        Tuple.of(6, nextEpoch),
                        Tuple.of(2, hash),
                        Tuple.of(3, snapshot),
                        Tuple.of(2, restore),
                        Tuple.of(1, replace))
                .list()
                .ofMaxSize(250);
    }

    /**
     * A trie with {@code model}'s contents reached the long way: random order, one epoch per update, transient
     * keys inserted and removed along the way (splits and collapses), snapshots and an abandoned branch.
     */
    private static CanonicalTrie<String, String> churn(
            HashMode mode, Map<String, String> model, List<Integer> transientKeys, Random random) {
        CanonicalTrie<String, String> trie = mode.newTrie(new StringCodec());
        List<String> keys = new ArrayList<>(model.keySet());
        Collections.sort(keys);
        Collections.shuffle(keys, random);
        long epoch = random.nextInt(1000);
        for (int n : transientKeys) {
            trie.put(TrieHarness.key(n), "transient", epoch);
        }
        TrieSnapshot<String, String> before = trie.snapshot();
        trie.put("abandoned", "x", ++epoch);
        trie.restore(before);
        for (String key : keys) {
            trie.put(key, "stale", ++epoch);
            if (random.nextInt(4) == 0) {
                trie.snapshot();
                epoch++;
            }
        }
        for (int n : transientKeys) {
            if (!model.containsKey(TrieHarness.key(n))) {
                trie.remove(TrieHarness.key(n), epoch);
            }
        }
        Collections.shuffle(keys, random);
        for (String key : keys) {
            trie.put(key, model.get(key), epoch);
        }
        return trie;
    }

    private static List<Map.Entry<String, String>> list(CanonicalTrie<String, String> trie) {
        List<Map.Entry<String, String>> entries = new ArrayList<>();
        trie.forEach(entry -> entries.add(Map.entry(entry.getKey(), entry.getValue())));
        return entries;
    }

    private static void assertDisjoint(List<Bucket<String, String>> changes) {
        for (int i = 0; i < changes.size(); i++) {
            for (int j = i + 1; j < changes.size(); j++) {
                Bucket<String, String> left = changes.get(i);
                Bucket<String, String> right = changes.get(j);
                int common = Math.min(left.depth(), right.depth());
                assertThat(left.prefix() & Prefix.mask(common))
                        .as("%s overlaps %s", left, right)
                        .isNotEqualTo(right.prefix() & Prefix.mask(common));
            }
        }
    }
}
