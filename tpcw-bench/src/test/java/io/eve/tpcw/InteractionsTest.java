package io.eve.tpcw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.ExecutionContext;
import io.eve.h2.H2State;
import io.eve.tpcw.interaction.Ids;
import io.eve.tpcw.interaction.RequestCodec;
import io.eve.tpcw.interaction.TpcwRequest;
import io.eve.tpcw.interaction.TpcwRequest.AdminConfirm;
import io.eve.tpcw.interaction.TpcwRequest.AdminRequest;
import io.eve.tpcw.interaction.TpcwRequest.BestSellers;
import io.eve.tpcw.interaction.TpcwRequest.BuyConfirm;
import io.eve.tpcw.interaction.TpcwRequest.BuyRequest;
import io.eve.tpcw.interaction.TpcwRequest.CustomerRegistration;
import io.eve.tpcw.interaction.TpcwRequest.Home;
import io.eve.tpcw.interaction.TpcwRequest.NewProducts;
import io.eve.tpcw.interaction.TpcwRequest.OrderDisplay;
import io.eve.tpcw.interaction.TpcwRequest.OrderInquiry;
import io.eve.tpcw.interaction.TpcwRequest.ProductDetail;
import io.eve.tpcw.interaction.TpcwRequest.SearchRequest;
import io.eve.tpcw.interaction.TpcwRequest.SearchResult;
import io.eve.tpcw.interaction.TpcwRequest.SearchType;
import io.eve.tpcw.interaction.TpcwRequest.ShoppingCart;
import io.eve.tpcw.schema.DigSyl;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class InteractionsTest {
    private H2State state;
    private TpcwApplication app;
    private Connection reader;
    private long seq;

    @BeforeEach
    void setUp() throws Exception {
        String url = Fixtures.url();
        state = TpcwDatabase.newState(url, Fixtures.SMALL, Fixtures.SEED);
        app = new TpcwApplication(state, Fixtures.SMALL.items(), 10);
        reader = DriverManager.getConnection(url, "sa", "");
    }

    @AfterEach
    void tearDown() throws Exception {
        reader.close();
        state.close();
    }

    @Test
    void shouldAnswerBrowseInteractionsDeterministicallyWithoutWriting() throws Exception {
        List<TpcwRequest> browse = List.of(
                new Home(5),
                new Home(0),
                new NewProducts(3),
                new BestSellers(4),
                new ProductDetail(17),
                new SearchRequest(),
                new SearchResult(SearchType.TITLE, DigSyl.of(1)),
                new SearchResult(SearchType.AUTHOR, DigSyl.of(2)),
                new SearchResult(SearchType.SUBJECT, "HISTORY"),
                new CustomerRegistration(3),
                new OrderInquiry(3),
                new AdminRequest(9));
        for (TpcwRequest request : browse) {
            byte[] payload = RequestCodec.encode(request);
            ExecutionContext context = Fixtures.context(++seq);
            byte[] first = app.execute(payload, context);
            byte[] again = app.execute(payload, Fixtures.context(seq));
            assertThat(first).as(request.toString()).isEqualTo(again).hasSizeGreaterThan(1);
            assertThat(first[0]).isEqualTo((byte) request.interaction().code());
        }
        state.seal(1);
        assertThat(state.rootAt(1)).isEqualTo(state.rootAt(0));
    }

    @Test
    void shouldFindTitlesBySyllablePrefix() throws Exception {
        byte[] reply = run(new SearchResult(SearchType.TITLE, DigSyl.of(1)));
        long expected = count("SELECT COUNT(*) FROM item WHERE i_title LIKE '" + DigSyl.of(1) + "%'");
        assertThat(expected).isGreaterThan(1);
        // The reply ends with the promotion's five related items; the match count precedes them.
        assertThat(reply.length).isGreaterThan((int) expected * 8);
    }

    @Test
    void shouldCreateFillRefreshAndTopUpCarts() throws Exception {
        long cart = Ids.of(Fixtures.CLIENT, 1);
        run(new ShoppingCart(cart, true, 11, new int[0], new int[0]));
        run(new ShoppingCart(cart, false, 11, new int[0], new int[0]));
        assertThat(count("SELECT COUNT(*) FROM shopping_cart WHERE sc_id = " + cart))
                .isEqualTo(1);
        assertThat(count("SELECT scl_qty FROM shopping_cart_line WHERE scl_sc_id = " + cart + " AND scl_i_id = 11"))
                .isEqualTo(2);
        run(new ShoppingCart(cart, false, 0, new int[] {11}, new int[] {7}));
        assertThat(count("SELECT scl_qty FROM shopping_cart_line WHERE scl_i_id = 11"))
                .isEqualTo(7);
        run(new ShoppingCart(cart, false, 0, new int[] {11}, new int[] {0}));
        // Removing the last line leaves an empty cart, which gets a related item (UW behaviour).
        assertThat(count("SELECT COUNT(*) FROM shopping_cart_line WHERE scl_i_id = 11"))
                .isZero();
        assertThat(count("SELECT COUNT(*) FROM shopping_cart_line WHERE scl_sc_id = " + cart))
                .isEqualTo(1);
        assertThatThrownBy(() -> run(new ShoppingCart(Ids.of(Fixtures.CLIENT + 1, 1), true, 3, new int[0], new int[0])))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not in the id space of client 1000");
        assertThatThrownBy(() -> run(new ShoppingCart(Ids.of(Fixtures.CLIENT, 9), false, 3, new int[0], new int[0])))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("does not exist");
    }

    @Test
    void shouldRegisterBuyAndDisplayAnOrder() throws Exception {
        long cart = Ids.of(Fixtures.CLIENT, 1);
        long customer = Ids.of(Fixtures.CLIENT, 2);
        long order = Ids.of(Fixtures.CLIENT, 4);
        run(new ShoppingCart(cart, true, 21, new int[0], new int[0]));
        run(new ShoppingCart(cart, false, 22, new int[] {21}, new int[] {3}));
        long stockBefore = count("SELECT i_stock FROM item WHERE i_id = 21");
        long ordersBefore = count("SELECT COUNT(*) FROM orders");
        run(new BuyRequest(cart, "", "", customer, Ids.of(Fixtures.CLIENT, 3), 5));
        assertThat(count("SELECT COUNT(*) FROM customer WHERE c_id = " + customer + " AND c_uname = '"
                        + DigSyl.of(customer) + "'"))
                .isEqualTo(1);
        run(new BuyRequest(cart, DigSyl.of(3), DigSyl.of(3).toLowerCase(java.util.Locale.ROOT), 0, 0, 1));
        run(new BuyConfirm(cart, customer, order, 2, Ids.of(Fixtures.CLIENT, 5), 7));
        assertThat(count("SELECT COUNT(*) FROM orders")).isEqualTo(ordersBefore + 1);
        assertThat(count("SELECT COUNT(*) FROM order_line WHERE ol_o_id = " + order))
                .isEqualTo(2);
        assertThat(count("SELECT ol_qty FROM order_line WHERE ol_o_id = " + order + " AND ol_i_id = 21"))
                .isEqualTo(3);
        assertThat(count("SELECT COUNT(*) FROM cc_xacts WHERE cx_o_id = " + order))
                .isEqualTo(1);
        assertThat(count("SELECT cx_co_id FROM cc_xacts WHERE cx_o_id = " + order))
                .isEqualTo(7);
        assertThat(count("SELECT COUNT(*) FROM shopping_cart_line WHERE scl_sc_id = " + cart))
                .isZero();
        long stockAfter = count("SELECT i_stock FROM item WHERE i_id = 21");
        assertThat(stockAfter).isEqualTo(stockBefore - 3 < 10 ? stockBefore - 3 + 21 : stockBefore - 3);
        byte[] display =
                run(new OrderDisplay(DigSyl.of(customer), DigSyl.of(customer).toLowerCase(java.util.Locale.ROOT)));
        assertThat(java.nio.ByteBuffer.wrap(display, 1, 8).getLong()).isEqualTo(order);
        // The cart is empty now: a second confirm fails and leaves nothing behind.
        assertThatThrownBy(() -> run(new BuyConfirm(cart, customer, Ids.of(Fixtures.CLIENT, 6), 0, 0, 1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is empty");
        assertThat(count("SELECT COUNT(*) FROM orders")).isEqualTo(ordersBefore + 1);
        assertThatThrownBy(() -> run(new OrderDisplay(DigSyl.of(3), "wrong")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldUpdateAnItemOnAdminConfirm() throws Exception {
        run(new AdminConfirm(42, 12_345, 77));
        try (Statement s = reader.createStatement();
                ResultSet r = s.executeQuery("SELECT i_cost, i_image, i_pub_date, i_related1, i_related2, i_related3,"
                        + " i_related4, i_related5 FROM item WHERE i_id = 42")) {
            assertThat(r.next()).isTrue();
            assertThat(r.getBigDecimal(1)).isEqualByComparingTo("123.45");
            assertThat(r.getString(2)).isEqualTo("img77/image_77.gif");
            assertThat(r.getDate(3).toLocalDate()).isEqualTo(io.eve.h2.Sql.today(Fixtures.context(seq)));
            java.util.Set<Integer> related = new java.util.HashSet<>();
            for (int column = 4; column <= 8; column++) {
                related.add(r.getInt(column));
            }
            assertThat(related).hasSize(5).doesNotContain(42);
        }
    }

    private byte[] run(TpcwRequest request) throws Exception {
        return app.execute(RequestCodec.encode(request), Fixtures.context(++seq));
    }

    private long count(String sql) throws Exception {
        try (Statement s = reader.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            assertThat(r.next()).as(sql).isTrue();
            return r.getLong(1);
        }
    }
}
