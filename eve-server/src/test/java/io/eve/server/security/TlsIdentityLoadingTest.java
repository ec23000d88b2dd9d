package io.eve.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.config.ConfigException;
import io.eve.transport.netty.tls.PeerIdentity;
import io.eve.transport.netty.tls.TlsIdentity;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Every way a node's or client's TLS material can be wrong is refused, naming the file and the problem. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsIdentityLoadingTest {
    @TempDir
    Path dir;

    private Path bundle;

    @BeforeEach
    void writeBundle() throws Exception {
        bundle = dir.resolve("bundle");
        Bundles.validFor(Duration.ofDays(1)).write(TestTls.cluster(), bundle, 1, true);
    }

    @Test
    void shouldLoadEachNodesAndTheClientsOwnFolder() {
        for (int node = 0; node < 3; node++) {
            TlsIdentity identity = TlsIdentity.loadNode(bundle.resolve("node-" + node), node);
            assertThat(identity.identity()).isEqualTo(PeerIdentity.node(node));
        }
        PeerIdentity client = TlsIdentity.loadClient(bundle.resolve("client-0")).identity();
        assertThat(client.isNode()).isFalse();
        assertThat(client.allows(Bundles.FIRST_CLIENT_ID)).isTrue();
        assertThat(client.allows(0)).isFalse();
    }

    @Test
    void shouldRefuseAMissingFolderOrFile() throws Exception {
        Path missing = dir.resolve("nowhere");
        assertThatThrownBy(() -> TlsIdentity.loadNode(missing, 0))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(missing.toString())
                .hasMessageContaining("does not exist");
        Path key = bundle.resolve("node-0").resolve(TlsIdentity.NODE_KEY);
        Files.delete(key);
        assertThatThrownBy(() -> TlsIdentity.loadNode(bundle.resolve("node-0"), 0))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(key.toString())
                .hasMessageContaining("does not exist");
    }

    @Test
    void shouldRefuseAPrivateKeyItsGroupOrOthersMayRead() throws Exception {
        Path key = bundle.resolve("node-1").resolve(TlsIdentity.NODE_KEY);
        Assumptions.assumeTrue(Files.getFileStore(key).supportsFileAttributeView("posix"), "POSIX permissions");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key)))
                .isEqualTo("rw-------");
        for (String permissions : new String[] {"rw-r-----", "rw----r--"}) {
            Files.setPosixFilePermissions(key, PosixFilePermissions.fromString(permissions));
            assertThatThrownBy(() -> TlsIdentity.loadNode(bundle.resolve("node-1"), 1))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining(key.toString())
                    .hasMessageContaining(permissions)
                    .hasMessageContaining("readable by its owner only");
        }
    }

    @Test
    void shouldRefuseASecretOwnedByAnotherUserNamingFileAndOwner() throws Exception {
        Path key = bundle.resolve("node-1").resolve(TlsIdentity.NODE_KEY);
        Assumptions.assumeTrue(Files.getFileStore(key).supportsFileAttributeView("posix"), "POSIX permissions");
        String owner = Files.getOwner(key).getName();
        TlsIdentity.checkOwnerOnly(key, "the private key of node 1", owner);
        assertThatThrownBy(() -> TlsIdentity.checkOwnerOnly(key, "the private key of node 1", "eve-" + owner))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(key.toString())
                .hasMessageContaining("is owned by " + owner + ", not by eve-" + owner);
    }

    @Test
    void shouldRefuseAKeyThatDoesNotMatchTheCertificate() throws Exception {
        Path key = bundle.resolve("node-0").resolve(TlsIdentity.NODE_KEY);
        Files.copy(bundle.resolve("node-1").resolve(TlsIdentity.NODE_KEY), key, StandardCopyOption.REPLACE_EXISTING);
        assertThatThrownBy(() -> TlsIdentity.loadNode(bundle.resolve("node-0"), 0))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("the private key " + key + " does not match the certificate")
                .hasMessageContaining(TlsIdentity.NODE_CERT);
    }

    @Test
    void shouldRefuseAnExpiredOrNotYetValidCertificate() throws Exception {
        Instant now = Instant.now();
        Bundles valid = Bundles.validFor(Duration.ofDays(1));
        Bundles.Issued ca = valid.ca("test-ca");
        Bundles expired = new Bundles(now.minus(Duration.ofDays(10)), now.minus(Duration.ofDays(1)));
        Path old = dir.resolve("expired");
        Bundles.writeIdentity(
                old, TlsIdentity.NODE_KEY, TlsIdentity.NODE_CERT, expired.issue(ca, PeerIdentity.node(0)), ca);
        assertThatThrownBy(() -> TlsIdentity.loadNode(old, 0))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(old.resolve(TlsIdentity.NODE_CERT) + " expired on");
        Bundles future = new Bundles(now.plus(Duration.ofDays(1)), now.plus(Duration.ofDays(10)));
        Path early = dir.resolve("early");
        Bundles.writeIdentity(
                early, TlsIdentity.NODE_KEY, TlsIdentity.NODE_CERT, future.issue(ca, PeerIdentity.node(0)), ca);
        assertThatThrownBy(() -> TlsIdentity.loadNode(early, 0))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(early.resolve(TlsIdentity.NODE_CERT) + " is not valid before");
    }

    @Test
    void shouldRefuseACertificateNotSignedByTheConfiguredCa() throws Exception {
        Bundles valid = Bundles.validFor(Duration.ofDays(1));
        Bundles.Issued ca = valid.ca("test-ca");
        Bundles.Issued otherCa = valid.ca("another-ca");
        Path folder = dir.resolve("foreign");
        // The certificate is the other CA's; the folder's ca.crt is the configured one.
        Bundles.writeIdentity(
                folder, TlsIdentity.NODE_KEY, TlsIdentity.NODE_CERT, valid.issue(otherCa, PeerIdentity.node(0)), ca);
        assertThatThrownBy(() -> TlsIdentity.loadNode(folder, 0))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(folder.resolve(TlsIdentity.NODE_CERT) + " is not signed by the configured CA "
                        + folder.resolve(TlsIdentity.CA_CERT));
    }

    @Test
    void shouldRefuseABundleHoldingAnotherNodesSecrets() throws Exception {
        // Another node's folder loaded as this node's.
        assertThatThrownBy(() -> TlsIdentity.loadNode(bundle.resolve("node-1"), 0))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(
                        bundle.resolve("node-1").resolve(TlsIdentity.NODE_CERT).toString())
                .hasMessageContaining("another process's secrets");
        // Another node's key copied beside this node's own.
        Path extra = bundle.resolve("node-0").resolve("node-1.key");
        Files.copy(bundle.resolve("node-1").resolve(TlsIdentity.NODE_KEY), extra);
        assertThatThrownBy(() -> TlsIdentity.loadNode(bundle.resolve("node-0"), 0))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(bundle.resolve("node-0").toString())
                .hasMessageContaining("[node-1.key]")
                .hasMessageContaining("another node's secrets");
        // A client never holds a node's identity.
        Path client = dir.resolve("client-as-node");
        Files.createDirectories(client);
        Files.copy(bundle.resolve("node-2").resolve(TlsIdentity.NODE_KEY), client.resolve(TlsIdentity.CLIENT_KEY));
        Files.copy(bundle.resolve("node-2").resolve(TlsIdentity.NODE_CERT), client.resolve(TlsIdentity.CLIENT_CERT));
        Files.copy(bundle.resolve("node-2").resolve(TlsIdentity.CA_CERT), client.resolve(TlsIdentity.CA_CERT));
        assertThatThrownBy(() -> TlsIdentity.loadClient(client))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(client.resolve(TlsIdentity.CLIENT_CERT).toString())
                .hasMessageContaining("a node");
    }

    @Test
    void shouldNeverWriteTheCasPrivateKey() throws Exception {
        try (var files = Files.walk(bundle)) {
            // Each private key is one identity's own: the node's or the client's, in its own folder.
            assertThat(files.filter(f -> f.getFileName().toString().endsWith(".key")))
                    .hasSize(4)
                    .allMatch(f -> f.getFileName().toString().equals(TlsIdentity.NODE_KEY)
                            || f.getFileName().toString().equals(TlsIdentity.CLIENT_KEY));
        }
    }
}
