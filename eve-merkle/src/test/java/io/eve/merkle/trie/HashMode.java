package io.eve.merkle.trie;

import java.util.function.ToLongFunction;

/** Key-hash functions for tests: the real one, and two that crowd keys together to force deep paths. */
enum HashMode {
    /** The trie's own SHA-256 key hash. */
    SHA256(null),
    /** Only the first and last nibbles vary: chains of single-child branches, collision buckets at depth 16. */
    SPARSE(bytes -> StringCodec.sha256KeyHash(bytes) & 0xF00000000000000FL),
    /** Four hash values in all: every bucket past a handful of keys is a depth-16 collision bucket. */
    COLLIDING(bytes -> StringCodec.sha256KeyHash(bytes) & 0x3L);

    private final ToLongFunction<byte[]> override;

    HashMode(ToLongFunction<byte[]> override) {
        this.override = override;
    }

    CanonicalTrie<String, String> newTrie(StringCodec codec) {
        return new CanonicalTrie<>(codec, override);
    }

    long keyHash(String key) {
        byte[] bytes = StringCodec.bytes(key);
        return override == null ? StringCodec.sha256KeyHash(bytes) : override.applyAsLong(bytes);
    }

    ToLongFunction<byte[]> specified() {
        return override == null ? StringCodec::sha256KeyHash : override;
    }
}
