package io.eve.verify.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.config.ConfigException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class MacKeysTest {
    static final int[] IDS = {0, 1, 2};
    static final String K01 = "11".repeat(32);
    static final String K02 = "22".repeat(32);
    static final String K12 = "33".repeat(32);
    static final String S0 = "44".repeat(32);
    static final String S1 = "55".repeat(32);

    /** Node 0's key file text parsed. */
    static MacKeys parse(String text) {
        return MacKeys.parseNode(text, "node-0/macs.properties", IDS, 0);
    }

    @Test
    void shouldParseANodesKeyFileWithCommentsAndBlankLines() {
        MacKeys keys = parse("# node 0\n\nkey.0-1=" + K01 + "\n! old style comment\nkey.0-2 = " + K02.toUpperCase()
                + "\r\nself.0=" + S0 + "\n");
        assertThat(keys.ids()).containsExactly(0, 1, 2);
        assertThat(keys.holder()).isZero();
        assertThat(HexFormat.of().formatHex(keys.key(2, 0))).isEqualTo(K02);
        assertThat(keys.key(0, 1)).isEqualTo(keys.key(1, 0));
        assertThat(HexFormat.of().formatHex(keys.key(0, 0))).isEqualTo(S0);
        assertThatThrownBy(() -> keys.key(1, 2)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void shouldRefuseAnotherNodesPairKeyNamingTheFileAndLine() {
        assertThatThrownBy(() -> parse("key.0-1=" + K01 + "\nkey.0-2=" + K02 + "\nkey.1-2=" + K12 + "\nself.0=" + S0))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("node-0/macs.properties line 3: key.1-2 is the key of nodes 1 and 2")
                .hasMessageContaining("another node's secret");
    }

    @Test
    void shouldRefuseAnotherNodesSelfKey() {
        assertThatThrownBy(() -> parse("key.0-1=" + K01 + "\nkey.0-2=" + K02 + "\nself.0=" + S0 + "\nself.1=" + S1))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("line 4: self.1 is the self key of node 1, another node's secret");
    }

    @Test
    void shouldNameTheMissingPairAndTheMissingSelfKey() {
        assertThatThrownBy(() -> parse("key.0-1=" + K01 + "\nself.0=" + S0))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("no key for the pair 0-2")
                .hasMessageContaining("key.0-2=<64 hex digits>");
        assertThatThrownBy(() -> parse("key.0-1=" + K01 + "\nkey.0-2=" + K02))
                .hasMessageContaining("no self key (expected a line self.0=<64 hex digits>)");
    }

    @Test
    void shouldNameTheLineOfABadKey() {
        assertThatThrownBy(() -> parse("key.0-1=" + K01 + "\nkey.0-2=" + "zz".repeat(32) + "\nself.0=" + S0))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("node-0/macs.properties line 2: key.0-2 is not hexadecimal");
        assertThatThrownBy(() -> parse("key.0-1=" + K01.substring(2)))
                .hasMessageContaining("line 1: key.0-1 has 62 characters; expected 64 hex digits (32 bytes)");
        assertThatThrownBy(() -> parse("key.0-1=" + "00".repeat(32))).hasMessageContaining("all zeros");
    }

    @Test
    void shouldRefuseAKeyUsedTwice() {
        assertThatThrownBy(() -> parse("key.0-1=" + K01 + "\nkey.0-2=" + K01 + "\nself.0=" + S0))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("line 2: key.0-2 holds the same key as key.0-1");
        assertThatThrownBy(() -> parse("key.0-1=" + K01 + "\nkey.0-2=" + K02 + "\nself.0=" + K02))
                .hasMessageContaining("line 3: self.0 holds the same key as key.0-2");
    }

    @Test
    void shouldRefuseMalformedNamesUnknownProcessesAndRepeats() {
        assertThatThrownBy(() -> parse("kye.0-1=" + K01)).hasMessageContaining("'kye.0-1' is not of the form");
        assertThatThrownBy(() -> parse("key.1-0=" + K01)).hasMessageContaining("smaller id first");
        assertThatThrownBy(() -> parse("key.0-7=" + K01)).hasMessageContaining("outside the cluster [0, 1, 2]");
        assertThatThrownBy(() -> parse("key.0-1=" + K01 + "\nkey.0-1=" + K01)).hasMessageContaining("line 2");
        assertThatThrownBy(() -> parse("key.0-1")).hasMessageContaining("line 1: expected key.<a>-<b>=");
        assertThatThrownBy(() -> MacKeys.parseNode("", "x", new int[] {1}, 1)).hasMessageContaining("at least two");
        assertThatThrownBy(() -> MacKeys.parseNode("", "x", new int[] {1, 1}, 1))
                .hasMessageContaining("distinct");
        assertThatThrownBy(() -> MacKeys.parseNode("", "x", IDS, 5)).hasMessageContaining("node 5 is not in");
    }

    @Test
    void shouldWriteOneFilePerNodeWithOnlyItsOwnKeys(@TempDir Path dir) throws Exception {
        MacKeys generated = MacKeys.generate(new int[] {3, 1, 2, 0}, new SecureRandom());
        generated.writeNodeFiles(dir);
        int[] ids = {0, 1, 2, 3};
        for (int node : ids) {
            Path file = dir.resolve("node-" + node).resolve(MacKeys.NODE_FILE);
            MacKeys loaded = MacKeys.loadNode(file, ids, node);
            for (int other : ids) {
                assertThat(loaded.key(node, other)).isEqualTo(generated.key(node, other));
            }
            String text = Files.readString(file, StandardCharsets.UTF_8);
            for (int a : ids) {
                for (int b : ids) {
                    if (a < b && a != node && b != node) {
                        assertThat(text).doesNotContain("key." + a + "-" + b);
                    }
                }
                if (a != node) {
                    assertThat(text)
                            .doesNotContain("self." + a)
                            .doesNotContain(HexFormat.of().formatHex(generated.key(a, a)));
                }
            }
            if (Files.getFileStore(file).supportsFileAttributeView("posix")) {
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                        .isEqualTo("rw-------");
            }
        }
        assertThatThrownBy(() -> generated.writeNodeFiles(dir))
                .isInstanceOf(java.nio.file.FileAlreadyExistsException.class);
    }

    @Test
    void shouldRefuseAMissingOrReadableKeyFileNamingIt(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("node-0").resolve(MacKeys.NODE_FILE);
        assertThatThrownBy(() -> MacKeys.loadNode(missing, IDS, 0))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(missing.toString())
                .hasMessageContaining("does not exist");
        MacKeys.generate(IDS, new SecureRandom()).writeNodeFiles(dir);
        Path file = dir.resolve("node-1").resolve(MacKeys.NODE_FILE);
        if (Files.getFileStore(file).supportsFileAttributeView("posix")) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
            assertThatThrownBy(() -> MacKeys.loadNode(file, IDS, 1))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining(file.toString())
                    .hasMessageContaining("rw-r--r--")
                    .hasMessageContaining("readable by its owner only");
        }
    }

    @Test
    void shouldRefuseANodeFileLoadedAsAnotherNodes(@TempDir Path dir) throws Exception {
        MacKeys.generate(IDS, new SecureRandom()).writeNodeFiles(dir);
        Path file = dir.resolve("node-1").resolve(MacKeys.NODE_FILE);
        assertThatThrownBy(() -> MacKeys.loadNode(file, IDS, 0))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("another node's secret");
    }

    @Test
    void shouldKeepOnlyItsOwnPartInAnAuthenticator() {
        MacKeys all = MacKeys.insecureForTests(5, 0, 1, 2);
        MacKeys own = new Authenticator(all, 0).keys();
        assertThat(own.holder()).isZero();
        assertThat(own.key(0, 1)).isEqualTo(all.key(0, 1));
        assertThatThrownBy(() -> own.key(1, 2)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> own.key(1, 1)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> new Authenticator(own, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldNeverShowAKeyInToString() {
        MacKeys keys = parse("key.0-1=" + K01 + "\nkey.0-2=" + K02 + "\nself.0=" + S0);
        assertThat(keys.toString()).doesNotContain("1111", "2222", "4444").contains("2 pair keys");
        assertThat(new Authenticator(keys, 0).toString()).doesNotContain("1111");
    }

    @Test
    void shouldDeriveTestKeysFromTheSeed() {
        MacKeys keys = MacKeys.insecureForTests(5, 0, 1, 2);
        assertThat(keys.key(0, 0)).isNotEqualTo(keys.key(1, 1)).isNotEqualTo(keys.key(0, 1));
        assertThat(MacKeys.insecureForTests(5, 0, 1, 2).key(1, 2)).isEqualTo(keys.key(1, 2));
        assertThat(MacKeys.insecureForTests(6, 0, 1, 2).key(1, 2)).isNotEqualTo(keys.key(1, 2));
    }
}
