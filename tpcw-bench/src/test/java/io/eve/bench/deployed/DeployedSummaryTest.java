package io.eve.bench.deployed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeployedSummaryTest {
    private static DeployedPoint point(int run, String system, double perSecond) {
        return new DeployedPoint(
                run, system, perSecond, 1, 1, 0, 1, 2, 3, Map.of(), 1, 0, 0, 0, "", 1, Double.NaN, Double.NaN);
    }

    @Test
    void eachPointIsComparedWithTheBestRatisPointOfItsOwnRun() {
        List<DeployedPoint> rated = DeployedSummary.withRatios(List.of(
                point(1, "crash", 3000),
                point(1, "ratis-grpc", 1000),
                point(1, "ratis-netty", 1500),
                point(2, "crash", 1000),
                point(2, "ratis-grpc", 500),
                point(3, "crash", 1000)));

        assertThat(rated)
                .extracting(DeployedPoint::ratioToRatis)
                .containsExactly(2.0, 1000 / 1500.0, 1.0, 2.0, 1.0, Double.NaN);
        assertThat(rated)
                .extracting(DeployedPoint::system)
                .containsExactly("crash", "ratis-grpc", "ratis-netty", "crash", "ratis-grpc", "crash");
    }

    @Test
    void eachPointIsComparedWithTheUnreplicatedPointOfItsOwnRun() {
        List<DeployedPoint> rated = DeployedSummary.withRatios(List.of(
                point(1, "unreplicated", 2000),
                point(1, "crash", 1600),
                point(1, "primary-backup-durable", 1000),
                point(2, "crash", 900),
                point(2, "unreplicated", 1000),
                point(3, "crash", 1000)));

        assertThat(rated)
                .extracting(DeployedPoint::ratioToUnreplicated)
                .containsExactly(1.0, 0.8, 0.5, 0.9, 1.0, Double.NaN);
        assertThat(rated).extracting(DeployedPoint::ratioToRatis).allMatch(r -> Double.isNaN(r));
        assertThat(rated.get(0).eve()).isFalse();
        assertThat(rated.get(1).eve()).isTrue();
    }

    @Test
    void eachDurablePointIsComparedWithItsProfileInMemoryInTheSameRun() {
        List<DeployedPoint> points = List.of(
                point(1, "crash", 4000),
                point(1, "crash-durable", 3000),
                point(1, "primary-backup-durable", 500),
                point(2, "crash", 1000),
                point(2, "crash-durable", 900),
                point(3, "crash-durable", 900),
                point(3, "ratis-grpc", 100));

        List<DeployedSummary.DurableRatio> ratios = DeployedSummary.durableRatios(points, "durable");

        assertThat(ratios)
                .containsExactly(
                        new DeployedSummary.DurableRatio(1, "crash", 0.75),
                        new DeployedSummary.DurableRatio(2, "crash", 0.9));
        DeployedSummary.Spread crash = DeployedSummary.spreadOfRatios(ratios).get(0);
        assertThat(crash.system()).isEqualTo("crash");
        assertThat(crash.runs()).isEqualTo(2);
        assertThat(crash.median()).isCloseTo(0.825, within(1e-9));
        assertThat(crash.min()).isEqualTo(0.75);
        assertThat(crash.max()).isEqualTo(0.9);
    }

    @Test
    void aRunWhoseRatisCommittedNothingHasNoRatio() {
        List<DeployedPoint> rated = DeployedSummary.withRatios(List.of(point(1, "bft", 10), point(1, "ratis-grpc", 0)));

        assertThat(rated.get(0).ratioToRatis()).isNaN();
    }

    @Test
    void spreadIsMedianMinAndMaxPerSystemSkippingNaN() {
        List<DeployedSummary.Spread> spread = DeployedSummary.spread(
                List.of(
                        point(1, "crash", 30),
                        point(1, "bft", Double.NaN),
                        point(2, "crash", 10),
                        point(3, "crash", 20),
                        point(4, "crash", 40)),
                DeployedPoint::requestsPerSecond);

        assertThat(spread).hasSize(2);
        assertThat(spread.get(0)).isEqualTo(new DeployedSummary.Spread("crash", 4, 25, 10, 40));
        assertThat(spread.get(1).runs()).isZero();
        assertThat(spread.get(1).median()).isNaN();
    }

    @Test
    void cpuPerRequestIsNanosOverRequestsInMicros() {
        assertThat(DeployedPoint.microsPerRequest(30_000_000, 1_000)).isCloseTo(30.0, within(1e-9));
        assertThat(DeployedPoint.microsPerRequest(30_000_000, 0)).isNaN();
        assertThat(DeployedPoint.microsPerRequest(-1, 10)).isNaN();
    }
}
