package io.eve.bench.deployed;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** What the deployed benchmark refuses before it starts a single process. */
class DeployedBenchmarkOptionsTest {
    @TempDir
    Path dir;

    @Test
    void shouldRefuseAMissingShippedProfileBeforeMeasuringAnything() throws Exception {
        Files.writeString(dir.resolve("primary-backup.properties"), "profile=primary-backup\n");
        Path output = dir.resolve("out");
        StringWriter err = new StringWriter();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = new CommandLine(new DeployedBenchmark(new PrintStream(out, true, StandardCharsets.UTF_8)))
                .setErr(new PrintWriter(err, true))
                .execute(
                        "--systems", "unreplicated,primary-backup,crash/tls",
                        "--config-dir", dir.toString(),
                        "--output", output.toString());

        assertThat(code).as("a usage error").isEqualTo(2);
        assertThat(err.toString())
                .contains("--config-dir")
                .contains(dir.resolve("crash.properties").toAbsolutePath().toString())
                .contains("system 'crash/tls'");
        assertThat(out.toString(StandardCharsets.UTF_8)).as("nothing measured").isEmpty();
        assertThat(output).doesNotExist();
    }
}
