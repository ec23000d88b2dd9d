package io.eve.merkle.trie;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.merkle.Digest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Drives a trie and a plain map model through the same random history and compares them. */
final class TrieHarness {
    static final int KEYS = 150;

    record Saved(TrieSnapshot<String, String> snapshot, Map<String, String> model) {}

    final HashMode mode;
    final StringCodec codec = new StringCodec();
    final CanonicalTrie<String, String> trie;
    final List<Saved> saved = new ArrayList<>();
    Map<String, String> model = new HashMap<>();
    long epoch = 1;

    TrieHarness(HashMode mode) {
        this.mode = mode;
        this.trie = mode.newTrie(codec);
    }

    static String key(int n) {
        return "key-" + n;
    }

    void run(List<Op> ops) {
        ops.forEach(this::apply);
    }

    void apply(Op op) {
        if (op instanceof Op.Put put) {
            String value = "value-" + put.value();
            assertThat(trie.put(key(put.key()), value, epoch)).isEqualTo(model.put(key(put.key()), value));
        } else if (op instanceof Op.Remove remove) {
            assertThat(trie.remove(key(remove.key()), epoch)).isEqualTo(model.remove(key(remove.key())));
        } else if (op instanceof Op.Hash) {
            trie.rootDigest();
        } else if (op instanceof Op.NextEpoch) {
            epoch++;
        } else if (op instanceof Op.Snapshot snapshot) {
            if (snapshot.hashNow()) {
                trie.rootDigest();
            }
            saved.add(new Saved(trie.snapshot(), new HashMap<>(model)));
            epoch++;
        } else if (op instanceof Op.Restore restore) {
            if (!saved.isEmpty()) {
                restore(saved.get(restore.which() % saved.size()));
                checkAgainstModel();
            }
        } else {
            replace((Op.Replace) op);
        }
    }

    void restore(Saved target) {
        trie.restore(target.snapshot());
        model = new HashMap<>(target.model());
        // The caller contract: reuse the number right after the snapshot, even if a discarded branch used it.
        epoch = target.snapshot().epoch() + 1;
    }

    private void replace(Op.Replace op) {
        long prefix = mode.keyHash(key(op.anchor())) & Prefix.mask(op.depth());
        model.keySet().removeIf(key -> Prefix.matches(mode.keyHash(key), prefix, op.depth()));
        List<Map.Entry<String, String>> entries = new ArrayList<>();
        for (int n = op.parity(); n < KEYS && op.parity() < 2; n += 2) {
            if (Prefix.matches(mode.keyHash(key(n)), prefix, op.depth())) {
                entries.add(Map.entry(key(n), "value-" + op.value()));
                model.put(key(n), "value-" + op.value());
            }
        }
        Collections.reverse(entries);
        trie.replaceRange(prefix, op.depth(), entries, epoch);
    }

    /** Contents, order, size, lookups and digest all agree with the model. */
    void checkAgainstModel() {
        checkContents(trie, model, mode);
        assertThat(trie.rootDigest()).isEqualTo(rebuild(mode, model, 42).rootDigest());
    }

    /** Every saved snapshot, restored, still holds exactly what it held when taken. */
    void checkSnapshotsUnchanged() {
        for (Saved each : saved) {
            restore(each);
            checkAgainstModel();
        }
    }

    static void checkContents(CanonicalTrie<String, String> trie, Map<String, String> model, HashMode mode) {
        List<Map.Entry<String, String>> iterated = new ArrayList<>();
        trie.forEach((key, value) -> iterated.add(Map.entry(key, value)));
        assertThat(iterated).containsExactlyElementsOf(StringCodec.canonical(model, mode.specified()));
        List<Map.Entry<String, String>> viaIterator = new ArrayList<>();
        trie.iterator().forEachRemaining(viaIterator::add);
        assertThat(viaIterator).isEqualTo(iterated);
        assertThat(trie.size()).isEqualTo(model.size());
        model.forEach((key, value) -> assertThat(trie.get(key)).isEqualTo(value));
    }

    /** A fresh trie with {@code model}'s contents, inserted in a seeded random order at one epoch. */
    static CanonicalTrie<String, String> rebuild(HashMode mode, Map<String, String> model, long seed) {
        List<String> keys = new ArrayList<>(model.keySet());
        Collections.sort(keys);
        Collections.shuffle(keys, new Random(seed));
        CanonicalTrie<String, String> fresh = mode.newTrie(new StringCodec());
        keys.forEach(key -> fresh.put(key, model.get(key), 0));
        return fresh;
    }

    static Digest digestOf(HashMode mode, Map<String, String> model) {
        return rebuild(mode, model, 7).rootDigest();
    }
}
