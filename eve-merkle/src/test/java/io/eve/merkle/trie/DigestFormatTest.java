package io.eve.merkle.trie;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.merkle.Digest;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DigestFormatTest {
    /** Pins the whole format (key hash, order, bucket and branch encodings); change it only on purpose. */
    private static final String THOUSAND_ENTRIES = "9198f6e00e6fe2410d2a81527fab6556a93f224945941c2dcde1967bc9572903";

    @Test
    void shouldHashABucketAsSpecified() {
        CanonicalTrie<String, String> trie = new CanonicalTrie<>(new StringCodec());
        trie.put("ab", "xyz", 1);

        assertThat(trie.rootDigest()).isEqualTo(bucketDigest("ab", "xyz"));
    }

    @Test
    void shouldHashABranchAsSpecified() {
        CanonicalTrie<String, String> trie =
                new CanonicalTrie<>(new StringCodec(), bytes -> (long) (bytes[1] - '0') << 60);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        expected.write(0x01);
        for (int slot = 0; slot < 16; slot++) {
            if (slot < 9) {
                trie.put("k" + slot, "v" + slot, 1);
                expected.writeBytes(bucketDigest("k" + slot, "v" + slot).toByteArray());
            } else {
                expected.writeBytes(Digest.ZERO.toByteArray());
            }
        }

        assertThat(trie.rootDigest()).isEqualTo(Digest.of(StringCodec.sha256().digest(expected.toByteArray())));
    }

    @Test
    void shouldMatchTheKnownAnswer() {
        CanonicalTrie<String, String> trie = new CanonicalTrie<>(new StringCodec());
        for (int i = 0; i < 1000; i++) {
            trie.put("key-" + i, "value-" + i, 1);
        }

        assertThat(trie.rootDigest().toHex()).isEqualTo(THOUSAND_ENTRIES);
    }

    /** SHA-256(0x02 || count = 1 || keyLength || key || value as the test codec feeds it). */
    private static Digest bucketDigest(String key, String value) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write(0x02);
        bytes.writeBytes(StringCodec.intBytes(1));
        byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
        bytes.writeBytes(StringCodec.intBytes(keyBytes.length));
        bytes.writeBytes(keyBytes);
        byte[] valueBytes = value.getBytes(StandardCharsets.UTF_8);
        bytes.writeBytes(StringCodec.intBytes(valueBytes.length));
        bytes.writeBytes(valueBytes);
        return Digest.of(StringCodec.sha256().digest(bytes.toByteArray()));
    }
}
