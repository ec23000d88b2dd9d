package io.eve.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
    void shouldWriteOneObjectPerPointWithSettingsAndResults() throws Exception {
        String json = JsonReport.render(
                "kvsuite-threads",
                Instant.parse("2026-11-23T10:00:00Z"),
                List.of(point("eve-pb", 2_000, 12.5), point("unreplicated", 1_000, 1.0)));
        JsonNode root = new ObjectMapper().readTree(json);
        assertThat(root.get("figure").asText()).isEqualTo("kvsuite-threads");
        assertThat(root.get("date").asText()).isEqualTo("2026-11-23T10:00:00Z");
        assertThat(root.get("machine").get("cpus").asInt()).isPositive();
        JsonNode first = root.get("points").get(0);
        assertThat(root.get("points")).hasSize(2);
        assertThat(first.get("mode").asText()).isEqualTo("eve-pb");
        assertThat(first.get("threads").asInt()).isEqualTo(16);
        assertThat(first.get("workKind").asText()).isEqualTo("BLOCKING");
        assertThat(first.get("falseNegativeRate").asDouble()).isEqualTo(0.01);
        assertThat(first.get("requestsPerSecond").asDouble()).isEqualTo(1000);
        assertThat(first.get("speedup").asDouble()).isEqualTo(12.5);
        assertThat(first.get("cpuMicrosPerRequest").asDouble()).isEqualTo(2);
        assertThat(first.get("rootsEqual").asBoolean()).isTrue();
        assertThat(first.get("rollbacks").asLong()).isEqualTo(3);
        assertThat(root.get("points").get(1).get("mode").asText()).isEqualTo("unreplicated");
    }

    @Test
    void shouldWriteMissingFiguresAsNullAndKeepText() throws Exception {
        String json = JsonReport.render("x", Instant.EPOCH, List.of(point("eve-pb", 10, Double.NaN)));
        JsonNode point = new ObjectMapper().readTree(json).get("points").get(0);
        assertThat(point.get("speedup").isNull()).isTrue();
        assertThat(point.get("cpuRatio").isNull()).isTrue();
        assertThat(point.get("check").asText()).isEqualTo("roots \"equal\"");
    }
}
