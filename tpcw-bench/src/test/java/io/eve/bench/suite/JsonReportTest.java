package io.eve.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.samples.kv.WorkKind;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsonReportTest {
    private static PointResult point(String mode, long requests, double speedup) {
        Workload workload = new Workload(
                16,
                1_000,
                WorkKind.BLOCKING,
                1024,
                10_000,
                0.01,
                0,
                128,
                64,
                Duration.ofSeconds(1),
                Duration.ofSeconds(2));
        Mode.Check check = new Mode.Check(true, true, 3, "roots \"equal\"");
        return new PointResult(
                "Eve, 1 ms",
                mode,
                "Eve primary-backup",
                2,
                workload,
                16,
                requests,
                2.0,
                4_000_000,
                3_000_000,
                1_000_000,
                check,
                speedup,
                Double.NaN);
    }

    @Test
    void shouldWriteOneObjectPerPointWithSettingsAndResults() {
        String json = JsonReport.render(
                "kvsuite-threads",
                Instant.parse("2026-11-23T10:00:00Z"),
                List.of(point("eve-pb", 2_000, 12.5), point("unreplicated", 1_000, 1.0)));
        assertThat(json)
                .contains("\"figure\": \"kvsuite-threads\"")
                .contains("\"date\": \"2026-11-23T10:00:00Z\"")
                .contains("\"mode\": \"eve-pb\"")
                .contains("\"threads\": 16")
                .contains("\"workKind\": \"BLOCKING\"")
                .contains("\"falseNegativeRate\": 0.01")
                .contains("\"requestsPerSecond\": 1000")
                .contains("\"speedup\": 12.5")
                .contains("\"cpuMicrosPerRequest\": 2")
                .contains("\"rootsEqual\": true")
                .contains("\"rollbacks\": 3");
        assertThat(json.chars().filter(c -> c == '{').count())
                .isEqualTo(json.chars().filter(c -> c == '}').count());
    }

    @Test
    void shouldWriteMissingFiguresAsNullAndEscapeText() {
        String json = JsonReport.render("x", Instant.EPOCH, List.of(point("eve-pb", 10, Double.NaN)));
        assertThat(json).contains("\"speedup\": null").contains("\"cpuRatio\": null");
        assertThat(json).contains("roots \\\"equal\\\"");
    }

    @Test
    void shouldFormatNumbersCompactly() {
        assertThat(JsonReport.number(0.0)).isEqualTo("0");
        assertThat(JsonReport.number(1234.5)).isEqualTo("1234.5");
        assertThat(JsonReport.number(100000.0)).isEqualTo("100000");
        assertThat(JsonReport.number(Double.POSITIVE_INFINITY)).isEqualTo("null");
        assertThat(JsonReport.quote("a\nb\u0001")).isEqualTo("\"a\\nb\\u0001\"");
    }
}
