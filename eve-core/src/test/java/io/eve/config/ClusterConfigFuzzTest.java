package io.eve.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringReader;
import java.util.List;
import java.util.Properties;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Whatever a configuration file holds, loading it either succeeds with a valid configuration or fails
 * with a {@link ConfigException} that says what was wrong; nothing else escapes.
 */
class ClusterConfigFuzzTest {
    private static final List<String> KEYS = List.of(
            "profile",
            "nodes",
            "executor.threads",
            "execution.inline-batch-limit",
            "batch.max-size",
            "batch.max-delay-ms",
            "pipeline.depth",
            "heartbeat.interval-ms",
            "failure.timeout-ms",
            "transport.max-frame-bytes",
            "metrics.port",
            "unknown.key");

    @Property(tries = 2_000)
    void shouldOnlyEverFailWithAConfigException(@ForAll("files") String text) {
        Properties properties = new Properties();
        try {
            properties.load(new StringReader(text));
        } catch (IOException | IllegalArgumentException unreadable) {
            return; // not a properties file: ClusterConfig.load reports that as a ConfigException
        }
        try {
            ClusterConfig config = ClusterConfig.parse(properties);
            assertThat(config.nodes()).isNotEmpty();
            assertThat(config.executorThreads()).isPositive();
        } catch (ConfigException expected) {
            assertThat(expected.getMessage()).isNotBlank();
        }
    }

    @Provide
    Arbitrary<String> files() {
        Arbitrary<String> values = Arbitraries.oneOf(
                Arbitraries.of(
                        "primary-backup",
                        "PRIMARY-BACKUP",
                        "paxos",
                        "0@127.0.0.1:7100, 1@127.0.0.1:7101",
                        "0@h:1,1@h:1",
                        "0@h:1,0@h:2",
                        "0@h:-1,1@h:2",
                        "x@h:1",
                        "0@:1,1@h",
                        "@@@",
                        "",
                        " ",
                        "2147483648",
                        "-2147483649",
                        "-1",
                        "0",
                        "1",
                        "1e3",
                        "0x10",
                        "\\u0000",
                        "65535"),
                Arbitraries.integers().map(String::valueOf),
                Arbitraries.strings().ofMaxLength(40));
        Arbitrary<String> lines =
                Combinators.combine(Arbitraries.of(KEYS), values).as((key, value) -> key + "=" + value);
        Arbitrary<String> noise = Arbitraries.strings().ofMaxLength(30);
        return Arbitraries.oneOf(lines, lines, lines, noise)
                .list()
                .ofMaxSize(14)
                .map(l -> String.join("\n", l));
    }
}
