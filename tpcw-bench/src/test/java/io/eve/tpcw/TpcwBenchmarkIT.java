package io.eve.tpcw;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class TpcwBenchmarkIT {
    @Test
    @Timeout(120)
    void shouldRunEveryModeOfTheSmokeBenchmarkWithEqualRoots(@TempDir Path out) throws Exception {
        System.setProperty("java.awt.headless", "true");
        int exit = new CommandLine(new TpcwBenchmark())
                .execute("--smoke", "--mix", "ordering", "--out", out.toString(), "--date", "2026-11-23");
        assertThat(exit).isZero(); // every point: roots equal, invariants hold, acknowledged == committed

        String json = Files.readString(out.resolve("tpcw-ordering.json"));
        assertThat(json)
                .contains(
                        "\"mode\": \"sequential\"",
                        "\"mode\": \"unreplicated\"",
                        "\"mode\": \"eve\"",
                        "\"mode\": \"eve-crash\"");
        assertThat(json).contains("\"rootsAgree\": true").doesNotContain("\"rootsAgree\": false");
        assertThat(json).doesNotContain("\"healthy\": false");
        byte[] png = Files.readAllBytes(out.resolve("tpcw-ordering.png"));
        assertThat(png).hasSizeGreaterThan(1000);
        assertThat(new String(png, 1, 3, java.nio.charset.StandardCharsets.US_ASCII))
                .isEqualTo("PNG");
    }
}
