package io.eve.merkle.trie;

/**
 * Arithmetic on trie positions. A position is a prefix of the 64-bit key hash, held left-aligned in a
 * {@code long} (the bits past the prefix are zero), together with its length in nibbles, the depth.
 */
final class Prefix {
    /** Nibbles in a key hash, hence the depth of the collision buckets. */
    static final int MAX_DEPTH = 16;

    private Prefix() {}

    /** The child slot that {@code keyHash} takes below a node at {@code depth} (below 16). */
    static int nibble(long keyHash, int depth) {
        return (int) (keyHash >>> (60 - 4 * depth)) & 0xF;
    }

    /** The bits a prefix of {@code depth} nibbles keeps. */
    static long mask(int depth) {
        return depth == 0 ? 0L : -1L << (64 - 4 * depth);
    }

    static boolean matches(long keyHash, long prefix, int depth) {
        return (keyHash & mask(depth)) == prefix;
    }

    /** The prefix of slot {@code nibble} below the node at ({@code prefix}, {@code depth}). */
    static long child(long prefix, int depth, int nibble) {
        return prefix | ((long) nibble << (60 - 4 * depth));
    }

    static void check(long prefix, int depth) {
        if (depth < 0 || depth > MAX_DEPTH) {
            throw new IllegalArgumentException("depth must be between 0 and " + MAX_DEPTH + " nibbles, got " + depth);
        }
        if ((prefix & ~mask(depth)) != 0) {
            throw new IllegalArgumentException("prefix " + hex(prefix) + " has bits set past its " + depth
                    + " nibbles; expected the unused low bits to be zero");
        }
    }

    static String hex(long bits) {
        return String.format("%016x", bits);
    }
}
