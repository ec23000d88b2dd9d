package io.eve.samples.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class KvRequestTest {
    @Test
    void shouldRoundTripEveryOperation() {
        KvRequest[] requests = {
            new KvRequest.Read(7), new KvRequest.Update(3, new byte[] {1, 2, 3}), new KvRequest.SeededUpdate(9, -5)
        };
        for (KvRequest request : requests) {
            assertThat(KvRequest.decode(KvRequest.encode(request))).isEqualTo(request);
        }
    }

    @Test
    void shouldEncodeTheDocumentedLayout() {
        HexFormat hex = HexFormat.of();
        assertThat(hex.formatHex(KvRequest.encode(new KvRequest.Read(0x0102)))).isEqualTo("010000000000000102");
        assertThat(hex.formatHex(KvRequest.encode(new KvRequest.Update(1, new byte[] {(byte) 0xAB}))))
                .isEqualTo("02" + "0000000000000001" + "00000001" + "ab");
        assertThat(hex.formatHex(KvRequest.encode(new KvRequest.SeededUpdate(2, 3))))
                .isEqualTo("03" + "0000000000000002" + "0000000000000003");
    }

    @Test
    void shouldRejectMalformedPayloadsSayingWhatIsWrong() {
        assertRejected(new byte[0], "empty payload");
        assertRejected(new byte[] {9}, "unknown operation 9");
        assertRejected(new byte[] {KvRequest.READ, 0, 0}, "a READ is 9 bytes long, got 3");
        assertRejected(new byte[] {KvRequest.SEEDED_UPDATE, 0}, "a SEEDED_UPDATE is 17 bytes long, got 2");
        assertRejected(new byte[] {KvRequest.UPDATE, 0, 0, 0, 0}, "needs at least 13 bytes");
        byte[] shortValue = KvRequest.encode(new KvRequest.Update(4, new byte[5]));
        byte[] truncated = Arrays.copyOf(shortValue, shortValue.length - 2);
        assertRejected(truncated, "declares a 5-byte value but carries 3 bytes");
        byte[] negative = KvRequest.encode(new KvRequest.Read(0));
        negative[1] = (byte) 0x80;
        assertRejected(negative, "object ids are not negative");
    }

    @Test
    void shouldNotShareTheValueArrayWithTheCaller() {
        byte[] value = {1, 2};
        KvRequest.Update update = new KvRequest.Update(0, value);
        value[0] = 9;
        update.value()[1] = 9;
        assertThat(update.value()).containsExactly(1, 2);
    }

    private static void assertRejected(byte[] payload, String message) {
        assertThatThrownBy(() -> KvRequest.decode(payload))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }
}
