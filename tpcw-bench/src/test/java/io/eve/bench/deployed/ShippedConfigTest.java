package io.eve.bench.deployed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.config.ClusterConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShippedConfigTest {
    @Test
    void movesNodesAndMetricsOntoTheGivenPortsAndKeepsEverythingElse() {
        List<String> shipped = List.of(
                "# crash",
                "profile=crash",
                "nodes=0@127.0.0.1:7200, 1@127.0.0.1:7201, 2@127.0.0.1:7202",
                "batch.max-size=64",
                "metrics.port=9200");

        List<String> moved = ShippedConfig.rewrite(shipped, new int[] {4000, 4001, 4002, 5000});

        assertThat(moved)
                .containsExactly(
                        "# crash",
                        "profile=crash",
                        "nodes=0@127.0.0.1:4000, 1@127.0.0.1:4001, 2@127.0.0.1:4002",
                        "batch.max-size=64",
                        "metrics.port=5000");
    }

    @Test
    void addsAMetricsPortWhenTheShippedFileHasNone() {
        assertThat(ShippedConfig.rewrite(List.of("nodes=0@h:1, 1@h:2"), new int[] {10, 11, 12}))
                .containsExactly("nodes=0@127.0.0.1:10, 1@127.0.0.1:11", "metrics.port=12");
    }

    @Test
    void namesWhatIsWrong() {
        assertThatThrownBy(() -> ShippedConfig.rewrite(List.of("profile=crash"), new int[] {1}))
                .hasMessageContaining("no nodes= line");
        assertThatThrownBy(() -> ShippedConfig.rewrite(List.of("nodes=0@h:1, 1@h:2"), new int[] {1, 2}))
                .hasMessageContaining("need 3 ports");
        assertThatThrownBy(() -> ShippedConfig.rewrite(List.of("nodes=h:1"), new int[] {1, 2}))
                .hasMessageContaining("id@host:port");
    }

    @Test
    void writesALoadableBftConfigurationWithItsKeyFile(@TempDir Path dir) throws Exception {
        Path shipped = Files.createDirectories(dir.resolve("shipped"));
        Files.writeString(
                shipped.resolve("bft.properties"),
                String.join(
                        "\n",
                        "profile=bft",
                        "nodes=0@127.0.0.1:7300, 1@127.0.0.1:7301, 2@127.0.0.1:7302, 3@127.0.0.1:7303",
                        "metrics.port=9300",
                        "auth.keys-file=keys.properties",
                        ""));
        Files.writeString(shipped.resolve("keys.properties"), "key.0-1=00\n");

        Path config = ShippedConfig.write(shipped, "bft", dir.resolve("run"));

        assertThat(dir.resolve("run").resolve("keys.properties")).hasContent("key.0-1=00");
        List<String> lines = Files.readAllLines(config);
        assertThat(lines).contains("profile=bft", "auth.keys-file=keys.properties");
        assertThat(lines).noneMatch(l -> l.contains(":7300") || l.equals("metrics.port=9300"));
        assertThat(ShippedConfig.nodeIds(lines)).containsExactly(0, 1, 2, 3);
    }

    @Test
    void theShippedProfilesLoad(@TempDir Path dir) throws Exception {
        for (String profile : List.of("primary-backup", "crash", "bft")) {
            Path config = ShippedConfig.write(Path.of("..", "config"), profile, dir.resolve(profile));
            assertThat(ClusterConfig.load(config).profile().key()).isEqualTo(profile);
        }
    }

    @Test
    void setsTheExecutionThreadsOfEveryProfileWhenAsked(@TempDir Path dir) throws Exception {
        for (String profile : List.of("primary-backup", "crash", "bft")) {
            Path config = ShippedConfig.write(Path.of("..", "config"), profile, dir.resolve(profile), null, false, 16);
            assertThat(ClusterConfig.load(config).executorThreads()).isEqualTo(16);
            assertThat(Files.readAllLines(config))
                    .filteredOn(line -> line.startsWith("executor.threads"))
                    .containsExactly("executor.threads=16");
            Path shipped = ShippedConfig.write(
                    Path.of("..", "config"), profile, dir.resolve(profile + "-shipped"), null, false, null);
            assertThat(ClusterConfig.load(shipped).executorThreads())
                    .isEqualTo(ClusterConfig.load(Path.of("..", "config", profile + ".properties"))
                            .executorThreads());
        }
    }

    @Test
    void theShippedProfilesLoadDurableWithTheirStorageFolder(@TempDir Path dir) throws Exception {
        for (String profile : List.of("primary-backup", "crash", "bft", "crash-durable")) {
            Path storage = dir.resolve(profile).resolve("storage");
            ClusterConfig durable = ClusterConfig.load(
                    ShippedConfig.write(Path.of("..", "config"), profile, dir.resolve(profile), storage));
            assertThat(durable.storage().enabled()).isTrue();
            assertThat(Files.readAllLines(dir.resolve(profile).resolve("cluster.properties")))
                    .filteredOn(line -> line.startsWith("storage."))
                    .containsExactly(
                            "storage.dir=" + storage.toAbsolutePath().toString().replace('\\', '/'),
                            "storage.sync=batch");
            ClusterConfig inMemory = ClusterConfig.load(
                    ShippedConfig.write(Path.of("..", "config"), profile, dir.resolve(profile + "-memory"), null));
            assertThat(inMemory.storage().enabled()).isFalse();
        }
    }

    @Test
    void theShippedProfilesLoadWithTlsOnAndDemoCertificatesBesideTheFile(@TempDir Path dir) throws Exception {
        for (String profile : List.of("primary-backup", "crash", "bft")) {
            Path config = ShippedConfig.write(Path.of("..", "config"), profile, dir.resolve(profile), null, true);
            ClusterConfig cluster = ClusterConfig.load(config);
            assertThat(cluster.tls().enabled()).isTrue();
            assertThat(cluster.tls().demo()).isTrue();
            assertThat(cluster.tls().dir()).isEqualTo(dir.resolve(profile).resolve("tls"));
            assertThat(Files.readAllLines(config))
                    .filteredOn(line -> line.startsWith("tls."))
                    .containsExactly("tls.enabled=on", "tls.dir=tls", "tls.demo=on");
        }
    }

    @Test
    void tlsOffLeavesTheShippedTlsSettingsAlone(@TempDir Path dir) throws Exception {
        Path config = ShippedConfig.write(Path.of("..", "config"), "bft", dir.resolve("bft"), null, false);
        assertThat(Files.readAllLines(config)).contains("tls.enabled=on", "tls.demo=on");
        Path plain = ShippedConfig.write(Path.of("..", "config"), "crash", dir.resolve("crash"), null, false);
        assertThat(ClusterConfig.load(plain).tls().enabled()).isFalse();
    }

    @Test
    void aMissingShippedFileIsNamed(@TempDir Path dir) {
        assertThatThrownBy(() -> ShippedConfig.write(dir, "crash", dir.resolve("out")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("crash.properties");
    }
}
