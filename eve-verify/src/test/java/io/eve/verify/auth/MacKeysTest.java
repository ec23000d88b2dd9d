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

    static MacKeys parse(String text) {
        return MacKeys.parse(text, "keys.properties", IDS);
    }

    @Test
    void shouldParseAKeyFileWithCommentsAndBlankLines() {
        MacKeys keys = parse("# cluster keys\n\nkey.0-1=" + K01 + "\n! old style comment\nkey.0-2 = " + K02
                + "\r\nkey.1-2=" + K12.toUpperCase() + "\n");
        assertThat(keys.ids()).containsExactly(0, 1, 2);
        assertThat(HexFormat.of().formatHex(keys.key(2, 1))).isEqualTo(K12);
        assertThat(keys.key(0, 1)).isEqualTo(keys.key(1, 0));
    }

    @Test
    void shouldNameTheMissingPair() {
        assertThatThrownBy(() -> parse("key.0-1=" + K01 + "\nkey.1-2=" + K12))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("no key for the pair 0-2")
                .hasMessageContaining("key.0-2=<64 hex digits>");
    }

    @Test
    void shouldNameTheLineOfABadKey() {
        assertThatThrownBy(() -> parse("key.0-1=" + K01 + "\nkey.0-2=" + "zz".repeat(32) + "\nkey.1-2=" + K12))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("keys.properties line 2: key.0-2 is not hexadecimal");
        assertThatThrownBy(() -> parse("key.0-1=" + K01.substring(2)))
                .hasMessageContaining("line 1: key.0-1 has 62 characters; expected 64 hex digits (32 bytes)");
        assertThatThrownBy(() -> parse("key.0-1=" + "00".repeat(32))).hasMessageContaining("all zeros");
    }

    @Test
    void shouldRefuseAKeySharedByTwoPairs() {
        assertThatThrownBy(() -> parse("key.0-1=" + K01 + "\nkey.0-2=" + K02 + "\nkey.1-2=" + K01))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("line 3: key.1-2 holds the same key as key.0-1");
    }

    @Test
    void shouldRefuseMalformedNamesUnknownProcessesAndRepeats() {
        assertThatThrownBy(() -> parse("kye.0-1=" + K01)).hasMessageContaining("'kye.0-1' is not of the form");
        assertThatThrownBy(() -> parse("key.1-0=" + K01)).hasMessageContaining("smaller id first");
        assertThatThrownBy(() -> parse("key.0-7=" + K01)).hasMessageContaining("outside the cluster [0, 1, 2]");
        assertThatThrownBy(() -> parse("key.0-1=" + K01 + "\nkey.0-1=" + K01)).hasMessageContaining("line 2");
        assertThatThrownBy(() -> parse("key.0-1")).hasMessageContaining("line 1: expected key.<a>-<b>=");
        assertThatThrownBy(() -> MacKeys.parse("", "x", new int[] {1})).hasMessageContaining("at least two");
        assertThatThrownBy(() -> MacKeys.parse("", "x", new int[] {1, 1})).hasMessageContaining("distinct");
    }

    @Test
    void shouldWriteGeneratedKeysThatReadBack(@TempDir Path dir) throws Exception {
        MacKeys generated = MacKeys.generate(new int[] {3, 1, 2, 0}, new SecureRandom());
        Path file = dir.resolve("keys.properties");
        generated.write(file);
        MacKeys loaded = MacKeys.load(file, new int[] {0, 1, 2, 3});
        for (int a = 0; a < 4; a++) {
            for (int b = 0; b < 4; b++) {
                assertThat(loaded.key(a, b)).isEqualTo(generated.key(a, b));
            }
        }
        assertThat(Files.readString(file, StandardCharsets.UTF_8)).contains("key.0-1=", "key.2-3=");
        if (Files.getFileStore(file).supportsFileAttributeView("posix")) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                    .isEqualTo("rw-------");
        }
        assertThatThrownBy(() -> generated.write(file)).isInstanceOf(java.nio.file.FileAlreadyExistsException.class);
    }

    @Test
    void shouldNeverShowAKeyInToString() {
        MacKeys keys = parse("key.0-1=" + K01 + "\nkey.0-2=" + K02 + "\nkey.1-2=" + K12);
        assertThat(keys.toString()).doesNotContain("1111", "2222", "3333").contains("3 pair keys");
        assertThat(new Authenticator(keys, 0).toString()).doesNotContain("1111");
    }

    @Test
    void shouldDeriveSelfKeysNoOtherProcessHolds() {
        MacKeys keys = MacKeys.insecureForTests(5, 0, 1, 2);
        assertThat(keys.key(0, 0)).isNotEqualTo(keys.key(1, 1)).isNotEqualTo(keys.key(0, 1));
        assertThat(MacKeys.insecureForTests(5, 0, 1, 2).key(1, 2)).isEqualTo(keys.key(1, 2));
        assertThat(MacKeys.insecureForTests(6, 0, 1, 2).key(1, 2)).isNotEqualTo(keys.key(1, 2));
    }
}
