package io.eve.bench.latency;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class LatencyBenchmarkIT {
    @Test
    @Timeout(120)
    void shouldMeasureEveryKindAgainstBothBaselinesWithFiveRealProcesses(@TempDir Path logs) throws Exception {
        ByteArrayOutputStream table = new ByteArrayOutputStream();
        LatencyBenchmark benchmark = new LatencyBenchmark(
                200, 100, Duration.ofSeconds(2), new PrintStream(table, true, StandardCharsets.UTF_8));

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
        // Every read-only request (warm-up and measured) was answered alike by both replicas; the warm-up ran
        // for its 2 s, past its 100 requests of each kind (the table says how many).
        String printed = table.toString(StandardCharsets.UTF_8);
        Matcher warmed =
                Pattern.compile("warmed up with ([\\d,]+) of each kind").matcher(printed);
        assertThat(warmed.find()).as("the warm-up line in %s", printed).isTrue();
        long warmUpRequests = Long.parseLong(warmed.group(1).replace(",", ""));
        assertThat(warmUpRequests).isGreaterThanOrEqualTo(100);
        assertThat(result.readsAnswered()).isEqualTo(200 + warmUpRequests);
        assertThat(result.compilerNanos()).hasSize(5);
        if (Files.isDirectory(Path.of("/proc/self/task"))) {
            assertThat(Arrays.stream(result.compilerNanos()).min().orElseThrow())
                    .isNotNegative();
        }
        assertThat(printed)
                .contains("relayed ping-pong (client, relay, echo)")
                .contains("JIT compile CPU in the measured rounds, ms")
                .contains("/ relay")
                .contains("CPU time per round trip");
    }
}
