/**
 * The persistent 16-ary Merkle radix tree over dense ids ({@link io.eve.merkle.tree.IdTree}) that holds
 * every state object's digest: copy-on-write once per batch, O(1) snapshots, last-modified marks for
 * incremental transfer, parallel hashing of dirty subtrees. Mechanics, not API.
 */
package io.eve.merkle.tree;
