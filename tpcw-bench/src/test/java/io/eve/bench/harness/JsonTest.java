package io.eve.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {
    record Point(String name, double ratio, long count) {}

    @Test
    void writesRecordsAndMapsWithKeyColonValueAndNanAsNull() throws Exception {
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("figure", "a \"quoted\"\nname");
        report.put("points", List.of(new Point("x", Double.NaN, 3), new Point("y", 1.5, 4)));
        report.put("infinite", Double.POSITIVE_INFINITY);

        String json = Json.render(report);

        assertThat(json).contains("\"ratio\": null", "\"ratio\": 1.5", "\"count\": 3", "\"infinite\": null");
        assertThat(json).contains("\"figure\": \"a \\\"quoted\\\"\\nname\"");
        assertThat(json).endsWith("\n");
        assertThat(Json.mapper().readTree(json).get("points").get(1).get("name").asText())
                .isEqualTo("y");
    }
}
