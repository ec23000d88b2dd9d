package io.eve.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.config.ClusterConfig;
import io.eve.config.ConfigException;
import io.eve.verify.runtime.ReplicaRuntime;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What EveReplica refuses before it opens anything, each with a message that names the problem. */
class EveReplicaTest {

    @Test
    void shouldRefuseAnIncompleteReplicaNamingWhatIsMissing() throws IOException {
        ClusterConfig pair = parse("profile=primary-backup\nnodes=0@127.0.0.1:7100, 1@127.0.0.1:7101\n");
        assertThatThrownBy(() -> EveReplica.builder().node(0).build())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("needs a cluster configuration");
        assertThatThrownBy(() -> EveReplica.builder().config(pair).build())
                .hasMessageContaining("needs this replica's node id")
                .hasMessageContaining("[0, 1]");
        assertThatThrownBy(() -> EveReplica.builder().config(pair).node(5).build())
                .hasMessageContaining("node id 5 is not in nodes");
        assertThatThrownBy(() -> EveReplica.builder().config(pair).node(0).build())
                .hasMessageContaining("node 0 hosts an execution replica in the primary-backup profile")
                .hasMessageContaining("application(...)");
    }

    @Test
    void shouldRefuseADamagedVerifierStateNamingTheFile(@TempDir Path dir) throws IOException {
        ClusterConfig crash = parse("profile=crash\nnodes=0@127.0.0.1:7500, 1@127.0.0.1:7501, 2@127.0.0.1:7502\n"
                + "storage.dir=" + dir + "\n");
        Path state = dir.resolve("node-0").resolve("verifier.state");
        Files.createDirectories(state.getParent());
        Files.write(state, new byte[] {0x45, 0x56, 0x53, 0x46, 0, 0, 0, 1, 0, 0, 0, 9, 1, 2});
        assertThatThrownBy(() -> EveReplica.builder()
                        .config(crash)
                        .node(0)
                        .application(config -> {
                            throw new AssertionError("refused before the application is built");
                        })
                        .build())
                .hasMessageContaining(state.toAbsolutePath().toString())
                .hasMessageContaining("is corrupt");
    }

    @Test
    void shouldShipACrashProfileWithStorage() {
        ClusterConfig config = ClusterConfig.load(Path.of("../config/crash-durable.properties"));
        assertThat(config.profile().key()).isEqualTo("crash");
        assertThat(config.storage().enabled()).isTrue();
        assertThat(config.storage().sync()).isEqualTo(ClusterConfig.Storage.Sync.BATCH);
        assertThat(config.storage().nodeDir(1)).isEqualTo(Path.of("eve-data-crash", "node-1"));
    }

    @Test
    void shouldRefuseABftNodeWithoutItsKeyFile(@TempDir Path dir) throws IOException {
        Path config = bftConfig(dir, "keys.properties");
        assertThatThrownBy(() -> EveReplica.builder().config(config).node(3).build())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("the key file " + dir.resolve("keys.properties") + " of node 3 does not exist");
    }

    @Test
    void shouldRefuseABftNodeWhoseKeyFileHoldsAnotherNodesSecrets(@TempDir Path dir) throws IOException {
        io.eve.verify.auth.MacKeys.generate(new int[] {0, 1, 2, 3}, new java.security.SecureRandom())
                .writeNodeFiles(dir.resolve("keys"));
        // Node 3 is given node 0's file: it holds key.0-1, key.0-2 and node 0's self key.
        Files.copy(
                dir.resolve("keys/node-0/macs.properties"),
                dir.resolve("keys/node-3/macs.properties"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Path config = bftConfig(dir, "keys/node-{node}/macs.properties");
        assertThatThrownBy(() -> EveReplica.builder().config(config).node(3).build())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(dir.resolve("keys/node-3/macs.properties").toString())
                .hasMessageContaining("another node's secret");
    }

    @Test
    void shouldRefuseABftNodeWhoseKeyFileLacksSigningKeysWhileEvidenceIsSigned(@TempDir Path dir) throws IOException {
        io.eve.verify.auth.MacKeys.generate(new int[] {0, 1, 2, 3}, new java.security.SecureRandom())
                .writeNodeFiles(dir.resolve("keys"));
        Path file = dir.resolve("keys/node-3/macs.properties");
        // A key file of before signed evidence: its MAC keys only.
        Files.write(
                file,
                Files.readAllLines(file).stream()
                        .filter(line -> !line.startsWith("sign."))
                        .toList());
        Path config = bftConfig(dir, "keys/node-{node}/macs.properties");
        assertThatThrownBy(() -> EveReplica.builder().config(config).node(3).build())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("no evidence signing keys")
                .hasMessageContaining("auth.signed-evidence = off");
    }

    @Test
    void shouldRefuseAMissingConfigurationFileNamingIt(@TempDir Path dir) {
        assertThatThrownBy(() -> EveReplica.builder().config(dir.resolve("none.properties")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("none.properties");
    }

    @Test
    void shouldBuildAWitnessWithoutAnApplication(@TempDir Path dir) throws IOException {
        ClusterConfig cluster =
                parse("profile=primary-backup\nnodes=0@127.0.0.1:7190, 1@127.0.0.1:7191, 2@127.0.0.1:7192\n"
                        + "witness=2\nstorage.dir=" + dir + "\n");
        try (ReplicaRuntime witness =
                EveReplica.builder().config(cluster).node(2).build()) {
            assertThat(witness.node()).isEqualTo(2);
        }
        assertThatThrownBy(() -> EveReplica.builder().config(cluster).node(0).build())
                .hasMessageContaining("application(...)");
    }

    @Test
    void shouldCountSelfConnectedDialsAmongTheTransportMeters(@TempDir Path dir) throws IOException {
        ClusterConfig cluster =
                parse("profile=primary-backup\nnodes=0@127.0.0.1:7196, 1@127.0.0.1:7197, 2@127.0.0.1:7198\n"
                        + "witness=2\nstorage.dir=" + dir + "\n");
        io.micrometer.prometheusmetrics.PrometheusMeterRegistry registry =
                new io.micrometer.prometheusmetrics.PrometheusMeterRegistry(
                        io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT);
        try (ReplicaRuntime witness = EveReplica.builder()
                .config(cluster)
                .node(2)
                .meterRegistry(registry)
                .build()) {
            assertThat(witness.node()).isEqualTo(2);
            assertThat(registry.scrape())
                    .contains("eve_transport_self_connections_total{node=\"2\"} 0.0")
                    .contains("eve_transport_closed_total{node=\"2\",reason=\"bad_frame\"} 0.0");
        }
    }

    private static ClusterConfig parse(String text) throws IOException {
        Properties properties = new Properties();
        properties.load(new StringReader(text));
        return ClusterConfig.parse(properties);
    }

    /** A four-node bft cluster file in {@code dir} whose nodes read their keys from {@code keysFile}. */
    private static Path bftConfig(Path dir, String keysFile) throws IOException {
        Path config = dir.resolve("bft.properties");
        Files.writeString(
                config,
                "profile=bft\nnodes=0@127.0.0.1:7400, 1@127.0.0.1:7401, 2@127.0.0.1:7402, 3@127.0.0.1:7403\n"
                        + "auth.keys-file=" + keysFile + "\n");
        return config;
    }
}
