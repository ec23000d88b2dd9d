package io.eve.samples.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ClusterDemoIT {
    @Test
    void shouldSurviveDivergenceCrashAndRejoinWithAgreeingReplicas() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ClusterDemo.Settings settings = new ClusterDemo.Settings(2_000, 256, 100, 4, 4, Duration.ofMillis(1_500));
        boolean ok = new ClusterDemo(settings, new PrintStream(bytes, true, StandardCharsets.UTF_8)).run();
        String output = bytes.toString(StandardCharsets.UTF_8);
        assertThat(ok).as(output).isTrue();
        assertThat(output)
                .contains("0 wrong replies")
                .contains("failover to node 1")
                .contains(": agree");
    }
}
