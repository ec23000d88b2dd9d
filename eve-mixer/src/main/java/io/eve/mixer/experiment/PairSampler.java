package io.eve.mixer.experiment;

/**
 * Chooses each pair of positions {@code first < second < requests} independently with probability
 * {@code rate}, without visiting the pairs it does not choose: pairs are numbered in the order
 * (0,1), (0,2), (1,2), (0,3), … and the gap to the next chosen pair is drawn from the geometric distribution
 * by inversion. Work is proportional to the number of requests plus the number of pairs chosen.
 *
 * <p>Uses {@link StrictMath} so the gaps are bit-for-bit the same on every JVM. Immutable and thread-safe.
 */
final class PairSampler {
    private static final long NEVER = Long.MAX_VALUE / 4;

    private final SeededUniforms uniforms;
    private final double rate;

    PairSampler(SeededUniforms uniforms, double rate) {
        this.uniforms = uniforms;
        this.rate = rate;
    }

    void forEachChosen(int requests, PairVisitor visitor) {
        long pairs = (long) requests * (requests - 1) / 2;
        long draw = 0;
        long chosen = gap(draw++);
        int second = 1;
        long rowStart = 0; // number of the pair (0, second)
        while (chosen < pairs) {
            while (chosen >= rowStart + second) {
                rowStart += second;
                second++;
            }
            visitor.visit((int) (chosen - rowStart), second);
            chosen += 1 + gap(draw++);
        }
    }

    /** Pairs skipped before the next chosen one. */
    private long gap(long draw) {
        if (rate >= 1.0) {
            return 0;
        }
        if (rate <= 0.0) {
            return NEVER;
        }
        double survival = 1.0 - uniforms.at(draw); // in (0, 1], so its logarithm is finite
        double skipped = Math.floor(StrictMath.log(survival) / StrictMath.log1p(-rate));
        return skipped >= NEVER ? NEVER : (long) skipped;
    }
}
