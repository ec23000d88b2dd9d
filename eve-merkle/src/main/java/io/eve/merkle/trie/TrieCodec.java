package io.eve.merkle.trie;

import java.security.MessageDigest;

/**
 * Canonical bytes for the keys and values of a {@link CanonicalTrie}. Every replica must use the same codec:
 * the bytes decide where an entry sits, the iteration order and the digests.
 *
 * <p>Called on the thread that drives the trie. Implementations should be stateless.
 */
public interface TrieCodec<K, V> {
    /**
     * The key's canonical bytes: equal keys give equal bytes and different keys different bytes. The trie keeps
     * the returned array, so it must not be changed afterwards.
     */
    byte[] encodeKey(K key);

    /**
     * Feeds the value's canonical bytes into {@code sha256} with {@code update} calls only (no {@code digest}
     * or {@code reset}). The bytes must be self-delimiting, for example length-prefixed, because the bucket
     * digest concatenates the values of several entries without separators.
     */
    void hashValue(V value, MessageDigest sha256);
}
