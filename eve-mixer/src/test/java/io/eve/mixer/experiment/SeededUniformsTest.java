package io.eve.mixer.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class SeededUniformsTest {
    private static final long SALT = 0x1234_5678_9abc_def0L;

    @Test
    void shouldMatchTheSplitMix64ReferenceOutputsForAZeroState() {
        // Seed equal to the salt makes the state zero; SplitMix64 seeded with 0 starts with these outputs.
        SeededUniforms uniforms = new SeededUniforms(SALT, SALT);

        assertThat(uniforms.at(0)).isEqualTo(unit(0xe220a8397b1dcdafL));
        assertThat(uniforms.at(1)).isEqualTo(unit(0x6e789e6aa1b965f4L));
        assertThat(uniforms.at(2)).isEqualTo(unit(0x06c45d188009454fL));
    }

    @Test
    void shouldGiveTheSameValuesForTheSameSeed() {
        SeededUniforms one = new SeededUniforms(99, SALT);
        SeededUniforms other = new SeededUniforms(99, SALT);

        for (long index = 0; index < 1_000; index++) {
            assertThat(one.at(index)).isEqualTo(other.at(index));
        }
    }

    @Test
    void shouldGiveOtherValuesForAnotherSeedOrSalt() {
        SeededUniforms base = new SeededUniforms(99, SALT);

        assertThat(new SeededUniforms(100, SALT).at(0)).isNotEqualTo(base.at(0));
        assertThat(new SeededUniforms(99, SALT + 1).at(0)).isNotEqualTo(base.at(0));
    }

    @Test
    void shouldTellTheTwoOrdersOfAPairApart() {
        SeededUniforms uniforms = new SeededUniforms(7, SALT);

        assertThat(uniforms.atPair(1, 2)).isNotEqualTo(uniforms.atPair(2, 1));
    }

    @Test
    void shouldBeUniformOnTheUnitInterval() {
        SeededUniforms uniforms = new SeededUniforms(5, SALT);
        int draws = 200_000;
        int[] deciles = new int[10];
        double sum = 0;
        for (long index = 0; index < draws; index++) {
            double value = uniforms.at(index);
            assertThat(value).isGreaterThanOrEqualTo(0.0).isLessThan(1.0);
            deciles[(int) (value * 10)]++;
            sum += value;
        }

        assertThat(sum / draws).isCloseTo(0.5, within(0.005));
        for (int count : deciles) {
            assertThat((double) count / draws).isCloseTo(0.1, within(0.005));
        }
    }

    private static double unit(long bits) {
        return (bits >>> 11) * 0x1.0p-53;
    }
}
