package io.eve.merkle.trie;

/** One step of a random history driven by {@link TrieHarness}. */
sealed interface Op {
    record Put(int key, int value) implements Op {}

    record Remove(int key) implements Op {}

    /** Ends the epoch; the next step uses a fresh one. */
    record NextEpoch() implements Op {}

    /** Takes a snapshot (which ends the epoch), computing the digest at once or leaving it for later. */
    record Snapshot(boolean hashNow) implements Op {}

    /** Restores the n-th saved snapshot, modulo their number, then reuses the next epoch number. */
    record Restore(int which) implements Op {}

    /** Computes the root digest in the middle of an epoch, so that later updates in it must drop cached digests. */
    record Hash() implements Op {}

    /**
     * Replaces the range of {@code depth} nibbles around {@code anchor}'s hash with the even ({@code parity} 0)
     * or odd (1) keys that fall into it, or with nothing (2).
     */
    record Replace(int anchor, int depth, int parity, int value) implements Op {}
}
