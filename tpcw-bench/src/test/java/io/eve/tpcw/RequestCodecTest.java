package io.eve.tpcw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.tpcw.driver.EmulatedBrowser;
import io.eve.tpcw.driver.Mix;
import io.eve.tpcw.interaction.Interaction;
import io.eve.tpcw.interaction.RequestCodec;
import io.eve.tpcw.interaction.TpcwRequest;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RequestCodecTest {
    @Test
    void shouldRoundTripEveryInteractionTheBrowsersSend() {
        Set<Interaction> seen = EnumSet.noneOf(Interaction.class);
        EmulatedBrowser browser = new EmulatedBrowser(1000, Fixtures.SMALL, Mix.ORDERING, 3);
        for (int i = 0; i < 5000; i++) {
            TpcwRequest request = browser.next();
            assertThat(RequestCodec.decode(RequestCodec.encode(request))).isEqualTo(request);
            seen.add(request.interaction());
        }
        assertThat(seen).containsExactlyInAnyOrder(Interaction.values());
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "", // empty
                "63", // unknown code 99
                "00", // code 0
                "0100", // Home truncated
                "010000000000000001ff", // Home with a trailing byte
                "0218", // New Products, subject 24
                "0400000000", // Product Detail, item 0
                "06000541", // Search Result, a 5-character term cut short
                "0603014f", // Search Result, subject "O": not a subject
                "060102252a", // Search Result, title "%*"
                "0a00000000000000010000000000000001000000000000000106000000000000000001", // ship type 6
                "0e00000001000000000000000000000000" // Admin Confirm, cost 0
            })
    void shouldRefuseMalformedPayloads(String hex) {
        byte[] payload = java.util.HexFormat.of().parseHex(hex);
        assertThatThrownBy(() -> RequestCodec.decode(payload))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("null");
    }

    @Test
    void shouldNameWhatIsWrong() {
        assertThatThrownBy(() -> RequestCodec.decode(new byte[] {99}))
                .hasMessage("unknown TPC-W interaction code 99, expected 1..14");
        assertThatThrownBy(() -> RequestCodec.decode(new byte[] {1, 0})).hasMessageContaining("Home payload truncated");
        assertThatThrownBy(() -> RequestCodec.decode(new byte[] {2, 30}))
                .hasMessage("subject must be in 0..23, got 30");
        assertThatThrownBy(() ->
                        RequestCodec.encode(new TpcwRequest.ShoppingCart(5, false, 0, new int[] {1, 2}, new int[] {1})))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("as many quantities as items");
    }
}
