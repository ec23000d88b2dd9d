/**
 * The canonical Merkle hash trie ({@link io.eve.merkle.trie.CanonicalTrie}) behind replicated maps and sets: a
 * persistent 16-ary trie placed by a SHA-256 key hash whose shape, order and root digest depend only on its
 * contents, with O(1) snapshots, copy-on-write once per node per epoch and last-modified epochs that let state
 * transfer ship only the {@link io.eve.merkle.trie.Bucket}s that changed since a given batch.
 *
 * <p>The codec ({@link io.eve.merkle.trie.TrieCodec}) supplies canonical key bytes and value digests; the node
 * classes, the hasher and the update paths are package-private mechanics.
 */
package io.eve.merkle.trie;
