package io.eve.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.config.ClusterConfig;
import io.eve.config.ConfigException;
import io.eve.transport.netty.tls.PeerIdentity;
import io.eve.transport.netty.tls.TlsIdentity;
import io.eve.verify.auth.MacKeys;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped demo keys (issue 20, docs/operations.md "Demo keys"): with {@code tls.demo = on} the first start
 * generates a bundle outside the repository, in {@code tls.dir}, each node's folder holding only its own secrets;
 * later starts use it as it is; a cluster not all on this machine is refused.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DemoBundleTest {
    @TempDir
    Path dir;

    private ClusterConfig demo(String host) throws IOException {
        Properties properties = new Properties();
        properties.load(new StringReader("profile=bft\nnodes=0@" + host + ":7300, 1@127.0.0.1:7301, 2@127.0.0.1:7302,"
                + " 3@127.0.0.1:7303\ntls.enabled=on\ntls.demo=on\ntls.dir=demo\n"));
        return ClusterConfig.parse(properties, dir);
    }

    @Test
    void shouldGenerateTheDemoBundleOnceWithEachNodesOwnSecretsOnly() throws Exception {
        ClusterConfig cluster = demo("127.0.0.1");
        Path bundle = cluster.tls().dir();
        assertThat(bundle).doesNotExist();

        Bundles.prepareDemo(cluster);
        int[] ids = {0, 1, 2, 3};
        for (int node : ids) {
            Path folder = bundle.resolve("node-" + node);
            assertThat(TlsIdentity.loadNode(folder, node).identity()).isEqualTo(PeerIdentity.node(node));
            assertThat(Files.getPosixFilePermissions(folder.resolve(TlsIdentity.NODE_KEY)))
                    .containsOnly(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
            assertThat(MacKeys.loadNode(folder.resolve("macs.properties"), ids, node)
                            .signing()
                            .holder())
                    .as("node %d's key file: its own signing key", node)
                    .isEqualTo(node);
            for (int other : ids) {
                if (other != node) {
                    int stranger = other;
                    assertThatThrownBy(() -> MacKeys.loadNode(folder.resolve("macs.properties"), ids, stranger))
                            .as("node %d's file loaded as node %d's", node, other)
                            .isInstanceOf(ConfigException.class);
                }
            }
        }
        assertThat(TlsIdentity.loadClient(bundle.resolve("client-0")).identity().allows(Bundles.FIRST_CLIENT_ID))
                .isTrue();

        byte[] ca = Files.readAllBytes(bundle.resolve(TlsIdentity.CA_CERT));
        Bundles.prepareDemo(cluster);
        assertThat(Files.readAllBytes(bundle.resolve(TlsIdentity.CA_CERT)))
                .as("a later start uses the bundle as it is")
                .isEqualTo(ca);
        try (var entries = Files.list(dir)) {
            assertThat(entries.map(path -> path.getFileName().toString()).toList())
                    .as("no staging folder is left beside it")
                    .containsExactly("demo");
        }
    }

    @Test
    void shouldRefuseDemoKeysForANodeNotOnThisMachine() throws Exception {
        ClusterConfig cluster = demo("192.0.2.10");
        assertThatThrownBy(() -> Bundles.prepareDemo(cluster))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("tls.demo")
                .hasMessageContaining("node 0 is at 192.0.2.10")
                .hasMessageContaining("./eve certs");
        assertThat(cluster.tls().dir()).doesNotExist();
        assertThat(Set.of(dir.toFile().list())).isEmpty();
    }
}
