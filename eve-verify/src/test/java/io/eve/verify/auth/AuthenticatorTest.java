package io.eve.verify.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.protocol.Message;
import io.eve.transport.wire.FrameCodec;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class AuthenticatorTest {
    static final HexFormat HEX = HexFormat.of();
    static final int[] IDS = {0, 1, 2, 3};

    /** Node {@code node}'s key file: key.1-2 is 00 01 .. 1f; the other pairs and self keys hold their own. */
    static MacKeys fixedKeys(int node) {
        StringBuilder text = new StringBuilder();
        byte[] self = new byte[32];
        for (int i = 0; i < 32; i++) {
            self[i] = (byte) (0x90 + node + i);
        }
        text.append("self.")
                .append(node)
                .append('=')
                .append(HEX.formatHex(self))
                .append('\n');
        for (int a = 0; a < 3; a++) {
            for (int b = a + 1; b < 4; b++) {
                if (a != node && b != node) {
                    continue;
                }
                byte[] key = new byte[32];
                for (int i = 0; i < 32; i++) {
                    key[i] = (byte) (a == 1 && b == 2 ? i : 0x40 + 16 * a + 4 * b + i);
                }
                text.append("key.")
                        .append(a)
                        .append('-')
                        .append(b)
                        .append('=')
                        .append(HEX.formatHex(key))
                        .append('\n');
            }
        }
        return MacKeys.parseNode(text.toString(), "test", IDS, node);
    }

    @Test
    void shouldComputeTheKnownAnswerTag() {
        // Suspect(view 5), the known frame of docs/protocol.md. Expected value computed independently:
        // printf 00000001000000124556455702110000000000000005e4bf7d0e | xxd -r -p
        //     | openssl dgst -sha256 -mac HMAC -macopt
        // hexkey:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
        byte[] frame = new FrameCodec(1 << 16).encode(new Message.Suspect(5));
        assertThat(HEX.formatHex(frame)).isEqualTo("000000124556455702110000000000000005e4bf7d0e");
        byte[] tags = new Authenticator(fixedKeys(1), 1).tags(frame);
        assertThat(tags).hasSize(4 * Authenticator.TAG_BYTES);
        assertThat(HEX.formatHex(Authenticator.slotOf(tags, 2)))
                .isEqualTo("b91bcd13e54e101c7160c39f4e5c51c0c166aecef560432edbd4b61a80a31980");
    }

    @Test
    void shouldVerifyAtEveryProcessIncludingTheSender() {
        byte[] frame = {1, 2, 3, 4, 5};
        byte[] tags = new Authenticator(fixedKeys(1), 1).tags(frame);
        for (int id : IDS) {
            assertThat(new Authenticator(fixedKeys(id), id).verify(1, frame, tags))
                    .as("process %d", id)
                    .isTrue();
        }
    }

    @Test
    void shouldRejectATamperedFrameTagOrOrigin() {
        Authenticator receiver = new Authenticator(fixedKeys(2), 2);
        byte[] frame = {1, 2, 3, 4, 5};
        byte[] tags = new Authenticator(fixedKeys(1), 1).tags(frame);

        byte[] otherFrame = frame.clone();
        otherFrame[4] ^= 1;
        assertThat(receiver.verify(1, otherFrame, tags)).isFalse();

        byte[] otherTags = tags.clone();
        otherTags[2 * 32 + 31] ^= 1;
        assertThat(receiver.verify(1, frame, otherTags)).isFalse();

        assertThat(receiver.verify(3, frame, tags)).isFalse();
        assertThat(receiver.verify(9, frame, tags)).isFalse();
        assertThat(receiver.verify(1, frame, Arrays.copyOf(tags, 3 * 32))).isFalse();
    }

    @Test
    void shouldLetNoOtherProcessForgeTheSendersOwnSlot() {
        byte[] frame = {9, 9};
        // Process 2 writes a vector claiming origin 1: its tags are keyed for (2, p), not (1, p).
        byte[] forged = new Authenticator(fixedKeys(2), 2).tags(frame);
        for (int id : IDS) {
            assertThat(new Authenticator(fixedKeys(id), id).verify(1, frame, forged))
                    .isFalse();
        }
    }

    @Test
    void shouldComputeTheSameTagsOnEveryThread() throws InterruptedException {
        Authenticator authenticator = new Authenticator(fixedKeys(0), 0);
        byte[] frame = {7, 7, 7};
        byte[] expected = authenticator.tags(frame);
        byte[][] seen = new byte[4][];
        Thread[] threads = new Thread[seen.length];
        for (int i = 0; i < threads.length; i++) {
            int index = i;
            threads[i] = new Thread(() -> {
                for (int round = 0; round < 200; round++) {
                    seen[index] = authenticator.tags(frame);
                }
            });
            threads[i].start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        for (byte[] tags : seen) {
            assertThat(tags).isEqualTo(expected);
        }
    }
}
