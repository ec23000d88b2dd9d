package io.eve.tpcw.interaction;

import io.eve.ExecutionContext;
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
import io.eve.tpcw.interaction.TpcwRequest.SearchResult;
import io.eve.tpcw.interaction.TpcwRequest.ShoppingCart;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Runs one decoded TPC-W interaction on a connection, inside the caller's transaction (eve-h2's, or a
 * plain JDBC one in the unreplicated modes). Deterministic: time comes from the context's batch
 * timestamp and randomness from its random source; every {@code ORDER BY ... FETCH FIRST} ends with a
 * unique key; new ids come from the request. Thread-safe (stateless apart from the configured item count).
 */
public final class Transactions {
    private final Browse browse;
    private final Cart cart;
    private final Orders orders;
    private final Admin admin;

    /** @param items the number of items in the database (fixed after population; promotions draw from it) */
    public Transactions(int items) {
        if (items < 20) {
            throw new IllegalArgumentException("a TPC-W database has at least 20 items, got " + items);
        }
        this.browse = new Browse(items);
        this.cart = new Cart(items, browse);
        this.orders = new Orders(cart);
        this.admin = new Admin(items, browse);
    }

    /** Decodes {@code payload} and runs it; a malformed payload is an {@link IllegalArgumentException}. */
    public byte[] run(Connection connection, byte[] payload, ExecutionContext context) throws SQLException {
        return run(connection, RequestCodec.decode(payload), context);
    }

    /** Runs {@code request} and returns its reply payload. */
    public byte[] run(Connection c, TpcwRequest request, ExecutionContext context) throws SQLException {
        switch (request.interaction()) {
            case HOME:
                return browse.home(c, (Home) request, context);
            case NEW_PRODUCTS:
                return browse.newProducts(c, (NewProducts) request, context);
            case BEST_SELLERS:
                return browse.bestSellers(c, (BestSellers) request, context);
            case PRODUCT_DETAIL:
                return browse.productDetail(c, (ProductDetail) request);
            case SEARCH_REQUEST:
                return browse.searchRequest(c, context);
            case SEARCH_RESULT:
                return browse.searchResult(c, (SearchResult) request, context);
            case SHOPPING_CART:
                return cart.shoppingCart(c, (ShoppingCart) request, context);
            case CUSTOMER_REGISTRATION:
                return orders.customerRegistration(c, (CustomerRegistration) request);
            case BUY_REQUEST:
                return orders.buyRequest(c, (BuyRequest) request, context);
            case BUY_CONFIRM:
                return orders.buyConfirm(c, (BuyConfirm) request, context);
            case ORDER_INQUIRY:
                return new ReplyWriter(Interaction.ORDER_INQUIRY)
                        .putLong(((OrderInquiry) request).customerId())
                        .toBytes();
            case ORDER_DISPLAY:
                return orders.orderDisplay(c, (OrderDisplay) request);
            case ADMIN_REQUEST:
                return admin.adminRequest(c, (AdminRequest) request);
            case ADMIN_CONFIRM:
                return admin.adminConfirm(c, (AdminConfirm) request, context);
            default:
                throw new IllegalArgumentException("unhandled interaction " + request.interaction());
        }
    }
}
