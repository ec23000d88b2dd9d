package io.eve.mixer.experiment;

/**
 * A stream of uniform values in [0, 1) fixed by a 64-bit seed and a salt, addressed by index: {@code at(i)}
 * is the same on every call, every replica and every JVM, and different indices give independent values for
 * every practical purpose. It is counter-based (the SplitMix64 output function of Steele, Lea and Flood,
 * OOPSLA 2014, applied to the seed plus the index times an odd constant), so it keeps no state and does not
 * care in which order indices are visited. It is written here rather than taken from
 * {@link java.util.SplittableRandom} so that replicas on different JDK releases still draw the same values.
 *
 * <p>Immutable and thread-safe.
 */
final class SeededUniforms {
    private static final long GOLDEN_GAMMA = 0x9e3779b97f4a7c15L;

    private final long base;

    SeededUniforms(long seed, long salt) {
        this.base = scramble(seed ^ salt);
    }

    /** The value at {@code index}. */
    double at(long index) {
        long bits = scramble(base + (index + 1) * GOLDEN_GAMMA);
        return (bits >>> 11) * 0x1.0p-53;
    }

    /** The value for the pair of request positions ({@code first}, {@code second}). */
    double atPair(int first, int second) {
        return at(((long) first << 32) | second);
    }

    private static long scramble(long value) {
        long z = value;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
