package io.eve.mixer.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PairSamplerTest {
    @Test
    void shouldVisitEveryPairOnceInOrderAtRateOne() {
        assertThat(chosen(1.0, 4, 0)).containsExactly("0-1", "0-2", "1-2", "0-3", "1-3", "2-3");
    }

    @Test
    void shouldVisitNothingAtRateZero() {
        assertThat(chosen(0.0, 100, 0)).isEmpty();
    }

    @Test
    void shouldVisitNothingInABatchOfOneOrNone() {
        assertThat(chosen(1.0, 1, 0)).isEmpty();
        assertThat(chosen(1.0, 0, 0)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(doubles = {0.001, 0.02, 0.3, 0.9})
    void shouldChooseEachPairWithTheGivenRateAcrossTheWholeBatch(double rate) {
        int requests = 50;
        int seeds = 400;
        long[] chosenPerSecond = new long[requests];
        for (long seed = 0; seed < seeds; seed++) {
            new PairSampler(new SeededUniforms(seed, 3), rate).forEachChosen(requests, (first, second) -> {
                assertThat(first).isLessThan(second);
                assertThat(second).isLessThan(requests);
                chosenPerSecond[second]++;
            });
        }

        assertNear(sum(chosenPerSecond, 1, requests), (long) seeds * requests * (requests - 1) / 2, rate);
        // The pairs with the last request are numbered last: a mapping error would show there first.
        assertNear(chosenPerSecond[requests - 1], (long) seeds * (requests - 1), rate);
    }

    private static void assertNear(long chosen, long pairs, double rate) {
        double tolerance = 5 * Math.sqrt(rate * (1 - rate) / pairs);
        assertThat((double) chosen / pairs).isBetween(rate - tolerance, rate + tolerance);
    }

    private static long sum(long[] counts, int from, int to) {
        long total = 0;
        for (int i = from; i < to; i++) {
            total += counts[i];
        }
        return total;
    }

    private static List<String> chosen(double rate, int requests, long seed) {
        List<String> pairs = new ArrayList<>();
        new PairSampler(new SeededUniforms(seed, 3), rate)
                .forEachChosen(requests, (first, second) -> pairs.add(first + "-" + second));
        return pairs;
    }
}
