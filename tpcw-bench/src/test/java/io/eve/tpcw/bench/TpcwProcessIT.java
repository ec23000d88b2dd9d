package io.eve.tpcw.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.tpcw.TpcwSettings;
import io.eve.tpcw.driver.Mix;
import io.eve.tpcw.schema.Scale;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * TPC-W on H2 as replica JVMs started through the launcher ({@code --app io.eve.tpcw.TpcwService}), driven
 * over TCP from this JVM for a few seconds of the shopping mix at a small scale: every interaction answered
 * without an error reply, and the execution replicas end on the same stable root. Every replica process is
 * killed when the test ends, failed or not.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TpcwProcessIT {
    private static final TpcwSettings SMALL = new TpcwSettings(new Scale(100, 2, 0.01), 4, 7);

    @ParameterizedTest
    @ValueSource(strings = {"primary-backup", "crash"})
    void shouldEndWithEqualRootsAndNoErrors(String profile) throws Exception {
        Path dir = Files.createTempDirectory(
                Files.createDirectories(Path.of("target", "process-it")), "tpcw-" + profile + "-");
        Path config = ProcessCluster.writeConfig(dir, profile, 2, SMALL);
        try (ProcessCluster cluster = ProcessCluster.start(config, List.of("-Xmx256m"));
                PrintStream quiet = new PrintStream(OutputStream.nullOutputStream())) {
            ClusterLoad.Result result = ClusterLoad.run(
                    cluster.cluster(),
                    new ClusterLoad.Settings(Mix.SHOPPING, 4, 0.5, 3, 0, 7, LoadDriver.FIRST_CLIENT),
                    quiet);

            assertThat(result.acknowledged()).as("interactions answered").isPositive();
            assertThat(result.errors()).as("error replies; logs in %s", dir).isZero();
            assertThat(result.audit().agreed())
                    .as(
                            "the execution replicas' stable roots: %s",
                            result.audit().describe())
                    .isTrue();
            assertThat(result.audit().statuses())
                    .hasSize(cluster.probe().executionNodes().size());
        }
    }
}
