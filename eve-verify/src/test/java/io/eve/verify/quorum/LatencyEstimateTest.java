package io.eve.verify.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The moving estimate behind the adaptive timeouts (decision 0028), fed explicit samples. */
class LatencyEstimateTest {
    static final long MS = 1_000_000L;

    @Test
    void shouldStayAtTheFloorWhileTheDelaysAreShort() {
        LatencyEstimate estimate = new LatencyEstimate(100 * MS, 6_400 * MS, 2, 4);
        assertThat(estimate.timeoutNanos()).isEqualTo(100 * MS);
        for (int i = 0; i < 50; i++) {
            estimate.sample(2 * MS);
        }
        assertThat(estimate.estimateNanos()).isLessThan(10 * MS);
        assertThat(estimate.timeoutNanos()).isEqualTo(100 * MS);
    }

    @Test
    void shouldFollowTheMeanPlusFourDeviationsAboveTheFloor() {
        LatencyEstimate estimate = new LatencyEstimate(100 * MS, 6_400 * MS, 2, 4);
        estimate.sample(200 * MS); // first sample: mean 200, deviation 100
        assertThat(estimate.estimateNanos()).isEqualTo(600 * MS);
        estimate.sample(200 * MS); // deviation 100 + (0 - 100) / 4 = 75, mean unchanged
        assertThat(estimate.estimateNanos()).isEqualTo(500 * MS);
        assertThat(estimate.timeoutNanos()).isEqualTo(500 * MS);
        for (int i = 0; i < 200; i++) {
            estimate.sample(300 * MS);
        }
        assertThat(estimate.timeoutNanos()).isBetween(300 * MS, 310 * MS);
    }

    @Test
    void shouldNeverExceedTheCeiling() {
        LatencyEstimate estimate = new LatencyEstimate(100 * MS, 1_000 * MS, 2, 4);
        estimate.sample(10_000 * MS);
        assertThat(estimate.timeoutNanos()).isEqualTo(1_000 * MS);
        estimate.backOff();
        estimate.backOff();
        assertThat(estimate.timeoutNanos()).isEqualTo(1_000 * MS);
    }

    @Test
    void shouldDoubleOnBackOffAndDecayOneDoublingPerQuietStretch() {
        LatencyEstimate estimate = new LatencyEstimate(100 * MS, 6_400 * MS, 2, 4);
        estimate.backOff();
        estimate.backOff();
        estimate.backOff();
        assertThat(estimate.doublings()).as("at most maxDoublings").isEqualTo(2);
        assertThat(estimate.timeoutNanos()).isEqualTo(400 * MS);
        for (int i = 0; i < 3; i++) {
            estimate.onProgress();
        }
        assertThat(estimate.timeoutNanos()).isEqualTo(400 * MS);
        estimate.onProgress();
        assertThat(estimate.timeoutNanos()).isEqualTo(200 * MS);
        for (int i = 0; i < 4; i++) {
            estimate.onProgress();
        }
        assertThat(estimate.timeoutNanos()).isEqualTo(100 * MS);
    }

    @Test
    void shouldRefuseBoundsThatMakeNoSense() {
        assertThatThrownBy(() -> new LatencyEstimate(0, 10, 0, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("floor 0");
        assertThatThrownBy(() -> new LatencyEstimate(10, 5, 0, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ceiling 5");
        assertThatThrownBy(() -> new LatencyEstimate(10, 50, -1, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxDoublings");
    }
}
