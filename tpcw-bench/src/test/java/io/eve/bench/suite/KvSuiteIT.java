package io.eve.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class KvSuiteIT {
    private static final byte[] PNG_MAGIC = {(byte) 0x89, 'P', 'N', 'G'};

    @Test
    @Timeout(180)
    void shouldRunEveryModeInSmokeModeAndWriteJsonAndPlots(@TempDir Path output) throws Exception {
        ByteArrayOutputStream table = new ByteArrayOutputStream();
        KvSuite suite = new KvSuite(new PrintStream(table, true, StandardCharsets.UTF_8));

        int code = KvSuite.commandLine(suite).execute("--smoke", "--output", output.toString());

        assertThat(code).as("exit code; output:%n%s", table).isZero();
        assertThat(suite.results().stream().map(PointResult::modeId).collect(Collectors.toList()))
                .containsExactlyElementsOf(Modes.ids());
        for (PointResult result : suite.results()) {
            assertThat(result.requests())
                    .as("%s committed requests", result.modeId())
                    .isPositive();
            assertThat(result.check().ok())
                    .as("%s: %s", result.modeId(), result.check().detail())
                    .isTrue();
            if (result.modeId().startsWith("eve") || result.modeId().equals("sequential-replication")) {
                assertThat(result.check().rootsEqual())
                        .as("%s state roots", result.modeId())
                        .isTrue();
            }
            assertThat(result.serverCpuNanos())
                    .as("%s server CPU", result.modeId())
                    .isPositive();
        }
        String json = Files.readString(output.resolve("kvsuite-custom.json"));
        for (String mode : Modes.ids()) {
            assertThat(json).contains("\"mode\": \"" + mode + "\"");
        }
        byte[] png = Files.readAllBytes(output.resolve("kvsuite-custom.png"));
        assertThat(Arrays.copyOf(png, 4)).isEqualTo(PNG_MAGIC);
    }
}
