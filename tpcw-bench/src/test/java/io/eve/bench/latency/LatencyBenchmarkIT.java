package io.eve.bench.latency;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class LatencyBenchmarkIT {
    @Test
    @Timeout(120)
    void shouldMeasureEveryKindAgainstBothBaselinesWithFiveRealProcesses(@TempDir Path logs) throws Exception {
        ByteArrayOutputStream table = new ByteArrayOutputStream();
        LatencyBenchmark benchmark =
                new LatencyBenchmark(200, 100, new PrintStream(table, true, StandardCharsets.UTF_8));

        LatencyBenchmark.Result result = benchmark.run(logs);

        assertThat(result.kinds()).hasSize(5);
        for (int kind = 0; kind < result.kinds().size(); kind++) {
            assertThat(result.latency().get(kind).p50())
                    .as("p50 of %s", result.kinds().get(kind))
                    .isPositive();
            long[] cpu = result.cpuNanos().get(kind);
            assertThat(cpu)
                    .as(
                            "CPU of the client, echo, relay, node 0 and node 1 during %s",
                            result.kinds().get(kind))
                    .hasSize(5);
            assertThat(Arrays.stream(cpu).min().orElseThrow()).isNotNegative();
        }
        // Every read-only request (warm-up and measured) was answered alike by both replicas.
        assertThat(result.readsAnswered()).isEqualTo(300);
        assertThat(table.toString(StandardCharsets.UTF_8))
                .contains("relayed ping-pong (client, relay, echo)")
                .contains("/ relay")
                .contains("CPU time per round trip");
    }
}
