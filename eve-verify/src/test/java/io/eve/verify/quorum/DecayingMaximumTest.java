package io.eve.verify.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DecayingMaximumTest {
    static final long S = 1_000_000_000L;

    @Test
    void shouldKeepTheLargestSampleAndHalveItPerHalfLife() {
        DecayingMaximum maximum = new DecayingMaximum(10 * S);
        assertThat(maximum.valueAt(0)).isZero();
        maximum.sample(8_000, 0);
        maximum.sample(2_000, S);
        assertThat(maximum.valueAt(S))
                .as("a smaller sample does not replace it")
                .isBetween(7_400L, 8_000L);
        assertThat(maximum.valueAt(10 * S)).isEqualTo(4_000);
        assertThat(maximum.valueAt(20 * S)).isEqualTo(2_000);
        maximum.sample(3_000, 20 * S);
        assertThat(maximum.valueAt(20 * S))
                .as("larger than the decayed maximum")
                .isEqualTo(3_000);
    }

    @Test
    void shouldCountNegativeSamplesAsZero() {
        DecayingMaximum maximum = new DecayingMaximum(S);
        maximum.sample(-5, 0);
        assertThat(maximum.valueAt(0)).isZero();
    }

    @Test
    void shouldRefuseAHalfLifeOfZero() {
        assertThatThrownBy(() -> new DecayingMaximum(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("half-life");
    }
}
