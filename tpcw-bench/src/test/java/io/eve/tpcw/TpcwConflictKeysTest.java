package io.eve.tpcw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.mixer.ConflictKeys;
import io.eve.tpcw.interaction.RequestCodec;
import io.eve.tpcw.interaction.TpcwRequest.AdminConfirm;
import io.eve.tpcw.interaction.TpcwRequest.BestSellers;
import io.eve.tpcw.interaction.TpcwRequest.BuyConfirm;
import io.eve.tpcw.interaction.TpcwRequest.BuyRequest;
import io.eve.tpcw.interaction.TpcwRequest.Home;
import io.eve.tpcw.interaction.TpcwRequest.OrderDisplay;
import io.eve.tpcw.interaction.TpcwRequest.OrderInquiry;
import io.eve.tpcw.interaction.TpcwRequest.ProductDetail;
import io.eve.tpcw.interaction.TpcwRequest.ShoppingCart;
import io.eve.tpcw.mixer.CartPartition;
import io.eve.tpcw.mixer.TpcwConflictKeys;
import org.junit.jupiter.api.Test;

class TpcwConflictKeysTest {
    private final TpcwConflictKeys keys = new TpcwConflictKeys(10);

    @Test
    void shouldUseEveFigure2KeysForTheFrequentTransactions() {
        assertThat(keys.of(new BestSellers(1)).reads())
                .containsExactlyInAnyOrder("ITEM", "AUTHOR", "ORDERS", "ORDER_LINE");
        assertThat(keys.of(new BestSellers(1)).writes()).isEmpty();
        assertThat(keys.of(new OrderDisplay("OG", "og")).reads())
                .contains("CUSTOMER", "CC_XACTS", "ADDRESS", "COUNTRY", "ORDER_LINE");
        ConflictKeys cart = keys.of(cart(13));
        assertThat(cart.reads()).containsExactly("ITEM");
        assertThat(cart.writes())
                .containsExactlyInAnyOrder(
                        new CartPartition("SHOPPING_CART", 3), new CartPartition("SHOPPING_CART_LINE", 3));
        ConflictKeys confirm = keys.of(new BuyConfirm(13, 1, 5, 0, 0, 1));
        assertThat(confirm.reads()).contains("CUSTOMER", "ADDRESS");
        assertThat(confirm.writes())
                .contains("ORDER_LINE", "ITEM", "CC_XACTS", "ORDERS", new CartPartition("SHOPPING_CART_LINE", 3))
                .doesNotContain("ADDRESS");
        assertThat(keys.of(new BuyConfirm(13, 1, 5, 0, 9, 1)).writes()).contains("ADDRESS");
    }

    @Test
    void shouldLetCartsInDifferentPartitionsRunTogether() {
        assertThat(keys.of(cart(13)).conflictsWith(keys.of(cart(14)))).isFalse();
        assertThat(keys.of(cart(13)).conflictsWith(keys.of(cart(23)))).isTrue();
        assertThat(keys.of(cart(13)).conflictsWith(keys.of(new ProductDetail(4))))
                .isFalse();
        assertThat(keys.of(cart(13)).conflictsWith(keys.of(new BuyConfirm(23, 1, 5, 0, 0, 1))))
                .isTrue();
        assertThat(keys.of(cart(13)).conflictsWith(keys.of(new BuyConfirm(24, 1, 5, 0, 0, 1))))
                .isTrue(); // ITEM
        assertThat(keys.of(new BuyRequest(13, "OG", "og", 0, 0, 1))
                        .conflictsWith(keys.of(new BuyRequest(24, "AL", "al", 0, 0, 1))))
                .isTrue(); // both refresh a customer session
        assertThat(new TpcwConflictKeys(1).of(cart(13)).conflictsWith(new TpcwConflictKeys(1).of(cart(14))))
                .isTrue();
    }

    @Test
    void shouldSerialiseItemWritersWithItemReaders() {
        ConflictKeys admin = keys.of(new AdminConfirm(4, 100, 1));
        assertThat(admin.conflictsWith(keys.of(new ProductDetail(9)))).isTrue();
        assertThat(admin.conflictsWith(keys.of(new OrderInquiry(1)))).isFalse();
        assertThat(keys.of(new Home(0)).conflictsWith(keys.of(new ProductDetail(9))))
                .isFalse();
    }

    @Test
    void shouldRefuseMalformedPayloads() {
        assertThatThrownBy(() -> keys.of(new byte[] {7, 1})).isInstanceOf(IllegalArgumentException.class);
        assertThat(keys.of(RequestCodec.encode(cart(13)))).isEqualTo(keys.of(cart(13)));
    }

    private static ShoppingCart cart(long id) {
        return new ShoppingCart(id, false, 1, new int[0], new int[0]);
    }
}
