package io.eve.tpcw.mixer;

import static io.eve.tpcw.schema.TpcwSchema.ADDRESS;
import static io.eve.tpcw.schema.TpcwSchema.AUTHOR;
import static io.eve.tpcw.schema.TpcwSchema.CC_XACTS;
import static io.eve.tpcw.schema.TpcwSchema.COUNTRY;
import static io.eve.tpcw.schema.TpcwSchema.CUSTOMER;
import static io.eve.tpcw.schema.TpcwSchema.ITEM;
import static io.eve.tpcw.schema.TpcwSchema.ORDERS;
import static io.eve.tpcw.schema.TpcwSchema.ORDER_LINE;
import static io.eve.tpcw.schema.TpcwSchema.SHOPPING_CART;
import static io.eve.tpcw.schema.TpcwSchema.SHOPPING_CART_LINE;

import io.eve.mixer.ConflictKeys;
import io.eve.tpcw.interaction.RequestCodec;
import io.eve.tpcw.interaction.TpcwRequest;
import io.eve.tpcw.interaction.TpcwRequest.BuyConfirm;
import io.eve.tpcw.interaction.TpcwRequest.BuyRequest;
import io.eve.tpcw.interaction.TpcwRequest.CustomerRegistration;
import io.eve.tpcw.interaction.TpcwRequest.Home;
import io.eve.tpcw.interaction.TpcwRequest.ShoppingCart;

/**
 * The TPC-W mixer's conflict keys (Eve §5.1, Fig. 2): the names of the tables an interaction reads and
 * writes, except that the two cart tables are split into partitions by cart id ({@link CartPartition}),
 * so Shopping Cart requests on different carts run in parallel. Used with {@code KeyConflictMixer}.
 *
 * <p>Unlike Eve's prototype, which left ORDERS out, every table an interaction touches is named, and
 * creating a cart writes only its own partition (the prototype wrote all ten, because it drew cart ids
 * from a shared counter; here the client picks the id). Stateless and thread-safe.
 */
public final class TpcwConflictKeys {
    /** Eve's split of the cart tables. */
    public static final int DEFAULT_CART_PARTITIONS = 10;

    private final int cartPartitions;

    public TpcwConflictKeys(int cartPartitions) {
        if (cartPartitions < 1) {
            throw new IllegalArgumentException("cartPartitions must be at least 1, got " + cartPartitions);
        }
        this.cartPartitions = cartPartitions;
    }

    /** The keys of a payload; a malformed payload is an {@link IllegalArgumentException}. */
    public ConflictKeys of(byte[] payload) {
        return of(RequestCodec.decode(payload));
    }

    /** The keys of a request. */
    public ConflictKeys of(TpcwRequest request) {
        switch (request.interaction()) {
            case HOME:
                return ((Home) request).customerId() == 0
                        ? ConflictKeys.reading(ITEM)
                        : ConflictKeys.reading(ITEM, CUSTOMER);
            case NEW_PRODUCTS:
            case PRODUCT_DETAIL:
            case SEARCH_RESULT:
            case ADMIN_REQUEST:
                return ConflictKeys.reading(ITEM, AUTHOR);
            case BEST_SELLERS:
                return ConflictKeys.reading(ITEM, AUTHOR, ORDERS, ORDER_LINE);
            case SEARCH_REQUEST:
                return ConflictKeys.reading(ITEM);
            case SHOPPING_CART:
                long cart = ((ShoppingCart) request).cartId();
                return ConflictKeys.reading(ITEM).andWriting(cart(SHOPPING_CART, cart), cart(SHOPPING_CART_LINE, cart));
            case CUSTOMER_REGISTRATION:
                return ((CustomerRegistration) request).customerId() == 0
                        ? ConflictKeys.none()
                        : ConflictKeys.reading(CUSTOMER);
            case BUY_REQUEST:
                return buyRequest((BuyRequest) request);
            case BUY_CONFIRM:
                return buyConfirm((BuyConfirm) request);
            case ORDER_INQUIRY:
                return ConflictKeys.none();
            case ORDER_DISPLAY:
                return ConflictKeys.reading(CUSTOMER, ORDERS, CC_XACTS, ADDRESS, COUNTRY, ORDER_LINE, ITEM);
            case ADMIN_CONFIRM:
                return ConflictKeys.reading(ORDERS, ORDER_LINE, AUTHOR).andWriting(ITEM);
            default:
                throw new IllegalArgumentException("unhandled interaction " + request.interaction());
        }
    }

    private ConflictKeys buyRequest(BuyRequest request) {
        ConflictKeys keys = ConflictKeys.reading(ITEM, cart(SHOPPING_CART_LINE, request.cartId()))
                .andWriting(CUSTOMER);
        return request.registers() ? keys.andWriting(ADDRESS) : keys.andReading(ADDRESS, COUNTRY);
    }

    private ConflictKeys buyConfirm(BuyConfirm request) {
        ConflictKeys keys = ConflictKeys.reading(CUSTOMER, ADDRESS)
                .andWriting(ORDERS, ORDER_LINE, ITEM, CC_XACTS, cart(SHOPPING_CART_LINE, request.cartId()));
        return request.newAddressId() != 0 ? keys.andWriting(ADDRESS) : keys;
    }

    /** The partition key of {@code table} for cart {@code cartId}. */
    public CartPartition cart(String table, long cartId) {
        return new CartPartition(table, (int) Math.floorMod(cartId, (long) cartPartitions));
    }
}
