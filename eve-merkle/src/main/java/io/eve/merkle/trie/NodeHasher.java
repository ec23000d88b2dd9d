package io.eve.merkle.trie;

import io.eve.merkle.Digest;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * Computes key hashes and node digests with one reused SHA-256 instance. The digest format is pinned in
 * {@link CanonicalTrie}. Confined to the thread that owns the trie.
 */
final class NodeHasher<K, V> {
    private static final byte BRANCH_TAG = 0x01;
    private static final byte BUCKET_TAG = 0x02;

    private final TrieCodec<K, V> codec;
    private final MessageDigest sha256;
    private final byte[] scratch = new byte[Digest.LENGTH];

    NodeHasher(TrieCodec<K, V> codec) {
        this.codec = codec;
        this.sha256 = newSha256();
    }

    static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform must provide SHA-256", e);
        }
    }

    /** The first 8 bytes, big-endian, of SHA-256({@code encodedKey}). */
    long keyHash(byte[] encodedKey) {
        sha256.reset();
        sha256.update(encodedKey);
        try {
            sha256.digest(scratch, 0, Digest.LENGTH);
        } catch (DigestException e) {
            throw new IllegalStateException("a 32-byte buffer must fit a SHA-256 digest", e);
        }
        long bits = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            bits = (bits << 8) | (scratch[i] & 0xFF);
        }
        return bits;
    }

    /** The node's digest, computing it and every stale digest below it; clean subtrees are not visited. */
    byte[] digest(Node<K, V> node) {
        if (node.hash == null) {
            if (node instanceof Branch<K, V> branch) {
                hashBranch(branch);
            } else {
                hashLeaf((Leaf<K, V>) node);
            }
        }
        return node.hash;
    }

    private void hashBranch(Branch<K, V> branch) {
        for (int dirty = branch.dirtyMask; dirty != 0; dirty &= dirty - 1) {
            int slot = Integer.numberOfTrailingZeros(dirty);
            int offset = slot * Digest.LENGTH;
            Node<K, V> child = branch.children[slot];
            if (child == null) {
                Arrays.fill(branch.childDigests, offset, offset + Digest.LENGTH, (byte) 0);
            } else {
                System.arraycopy(digest(child), 0, branch.childDigests, offset, Digest.LENGTH);
            }
        }
        branch.dirtyMask = 0;
        sha256.reset();
        sha256.update(BRANCH_TAG);
        sha256.update(branch.childDigests);
        branch.hash = sha256.digest();
    }

    private void hashLeaf(Leaf<K, V> leaf) {
        sha256.reset();
        sha256.update(BUCKET_TAG);
        updateInt(leaf.count);
        for (int i = 0; i < leaf.count; i++) {
            TrieEntry<K, V> entry = leaf.entries[i];
            updateInt(entry.encodedKey.length);
            sha256.update(entry.encodedKey);
            codec.hashValue(entry.getValue(), sha256);
        }
        leaf.hash = sha256.digest();
    }

    private void updateInt(int value) {
        scratch[0] = (byte) (value >>> 24);
        scratch[1] = (byte) (value >>> 16);
        scratch[2] = (byte) (value >>> 8);
        scratch[3] = (byte) value;
        sha256.update(scratch, 0, Integer.BYTES);
    }
}
