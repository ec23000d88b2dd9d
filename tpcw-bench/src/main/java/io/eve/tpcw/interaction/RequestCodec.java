package io.eve.tpcw.interaction;

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
import io.eve.tpcw.schema.Scale;
import io.eve.tpcw.schema.Subjects;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The compact binary payload of each interaction: one code byte ({@link Interaction#code()}), then the
 * fields big-endian (ids as 8 bytes, item ids and small numbers as 4 or 1 bytes, strings as a length byte
 * and printable ASCII). {@link #decode} checks everything and says what was wrong with an
 * {@link IllegalArgumentException}: unknown code, truncation, trailing bytes, out-of-range values.
 * Stateless and thread-safe.
 */
public final class RequestCodec {
    /** Longest string field. */
    public static final int MAX_STRING = 60;

    /** Most quantity updates in one Shopping Cart request. */
    public static final int MAX_CART_UPDATES = 100;

    /** Largest quantity a cart line may be set to. */
    public static final int MAX_QUANTITY = 10_000;

    /** Ship types a Buy Confirm may name (index into this list). */
    public static final int SHIP_TYPES = 6;

    private RequestCodec() {}

    /** The payload of {@code request}; invalid fields are refused as {@link #decode} would refuse them. */
    public static byte[] encode(TpcwRequest request) {
        ByteBuffer out = ByteBuffer.allocate(64 + 8 * MAX_CART_UPDATES + 4 * MAX_STRING);
        out.put((byte) request.interaction().code());
        if (request instanceof Home r) {
            out.putLong(r.customerId());
        } else if (request instanceof NewProducts r) {
            out.put((byte) r.subject());
        } else if (request instanceof BestSellers r) {
            out.put((byte) r.subject());
        } else if (request instanceof ProductDetail r) {
            out.putInt(r.itemId());
        } else if (request instanceof SearchResult r) {
            out.put((byte) r.type().ordinal());
            putString(out, r.term());
        } else if (request instanceof ShoppingCart r) {
            encodeCart(out, r);
        } else if (request instanceof CustomerRegistration r) {
            out.putLong(r.customerId());
        } else if (request instanceof BuyRequest r) {
            out.putLong(r.cartId());
            putString(out, r.uname());
            putString(out, r.password());
            out.putLong(r.newCustomerId()).putLong(r.newAddressId()).put((byte) r.countryId());
        } else if (request instanceof BuyConfirm r) {
            out.putLong(r.cartId()).putLong(r.customerId()).putLong(r.orderId());
            out.put((byte) r.shipType()).putLong(r.newAddressId()).put((byte) r.countryId());
        } else if (request instanceof OrderInquiry r) {
            out.putLong(r.customerId());
        } else if (request instanceof OrderDisplay r) {
            putString(out, r.uname());
            putString(out, r.password());
        } else if (request instanceof AdminRequest r) {
            out.putInt(r.itemId());
        } else if (request instanceof AdminConfirm r) {
            out.putInt(r.itemId()).putLong(r.costCents()).putInt(r.imageNumber());
        }
        byte[] payload = new byte[out.position()];
        out.flip().get(payload);
        decode(payload); // the same checks on both ends
        return payload;
    }

    private static void encodeCart(ByteBuffer out, ShoppingCart r) {
        int[] items = r.updateItems();
        int[] quantities = r.updateQuantities();
        if (items.length != quantities.length || items.length > MAX_CART_UPDATES) {
            throw new IllegalArgumentException("a cart update needs as many quantities as items (at most "
                    + MAX_CART_UPDATES + "), got " + items.length + " items and " + quantities.length + " quantities");
        }
        out.putLong(r.cartId()).put((byte) (r.create() ? 1 : 0)).putInt(r.addItem());
        out.put((byte) items.length);
        for (int i = 0; i < items.length; i++) {
            out.putInt(items[i]).putInt(quantities[i]);
        }
    }

    /**
     * The request in {@code payload}.
     *
     * @throws IllegalArgumentException naming what is malformed
     */
    public static TpcwRequest decode(byte[] payload) {
        if (payload == null || payload.length == 0) {
            throw new IllegalArgumentException("an empty payload is not a TPC-W request");
        }
        ByteBuffer in = ByteBuffer.wrap(payload);
        Interaction interaction = Interaction.ofCode(in.get() & 0xFF);
        TpcwRequest request;
        try {
            request = decodeBody(interaction, in);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException(
                    interaction.title() + " payload truncated: " + payload.length + " bytes are too few", e);
        }
        if (in.hasRemaining()) {
            throw new IllegalArgumentException(
                    interaction.title() + " payload has " + in.remaining() + " unexpected trailing bytes");
        }
        return request;
    }

    private static TpcwRequest decodeBody(Interaction interaction, ByteBuffer in) {
        switch (interaction) {
            case HOME:
                return new Home(id(in.getLong(), "customer id", true));
            case NEW_PRODUCTS:
                return new NewProducts(subject(in.get()));
            case BEST_SELLERS:
                return new BestSellers(subject(in.get()));
            case PRODUCT_DETAIL:
                return new ProductDetail(item(in.getInt()));
            case SEARCH_REQUEST:
                return new SearchRequest();
            case SEARCH_RESULT:
                return searchResult(in);
            case SHOPPING_CART:
                return cart(in);
            case CUSTOMER_REGISTRATION:
                return new CustomerRegistration(id(in.getLong(), "customer id", true));
            case BUY_REQUEST:
                return buyRequest(in);
            case BUY_CONFIRM:
                return new BuyConfirm(
                        id(in.getLong(), "cart id", false),
                        id(in.getLong(), "customer id", false),
                        id(in.getLong(), "order id", false),
                        range(in.get(), 0, SHIP_TYPES - 1, "ship type"),
                        id(in.getLong(), "new address id", true),
                        range(in.get(), 1, Scale.COUNTRIES, "country id"));
            case ORDER_INQUIRY:
                return new OrderInquiry(id(in.getLong(), "customer id", true));
            case ORDER_DISPLAY:
                return new OrderDisplay(name(getString(in), "user name"), getString(in));
            case ADMIN_REQUEST:
                return new AdminRequest(item(in.getInt()));
            case ADMIN_CONFIRM:
                return new AdminConfirm(item(in.getInt()), range(in.getLong(), 1, 100_000_000L, "cost in cents"), (int)
                        range(in.getInt(), 0, 1_000_000, "image number"));
            default:
                throw new IllegalArgumentException("unhandled interaction " + interaction);
        }
    }

    private static SearchResult searchResult(ByteBuffer in) {
        int type = in.get();
        if (type < 0 || type >= SearchType.values().length) {
            throw new IllegalArgumentException("search type must be 0 (author), 1 (title) or 2 (subject), got " + type);
        }
        SearchType searchType = SearchType.values()[type];
        String term = getString(in);
        if (searchType == SearchType.SUBJECT && !Subjects.ALL.contains(term)) {
            throw new IllegalArgumentException("a subject search needs one of the 24 subjects, got '" + term + "'");
        }
        if (searchType != SearchType.SUBJECT && !term.matches("[A-Za-z0-9]{1,60}")) {
            throw new IllegalArgumentException("a search term is 1..60 letters or digits, got '" + term + "'");
        }
        return new SearchResult(searchType, term);
    }

    private static ShoppingCart cart(ByteBuffer in) {
        long cart = id(in.getLong(), "cart id", false);
        int create = in.get();
        if (create != 0 && create != 1) {
            throw new IllegalArgumentException("the create flag of a cart is 0 or 1, got " + create);
        }
        int add = in.getInt();
        if (add < 0) {
            throw new IllegalArgumentException("the item to add must be 0 (none) or an item id, got " + add);
        }
        int count = in.get() & 0xFF;
        if (count > MAX_CART_UPDATES) {
            throw new IllegalArgumentException(
                    "a cart update has at most " + MAX_CART_UPDATES + " lines, got " + count);
        }
        int[] items = new int[count];
        int[] quantities = new int[count];
        for (int i = 0; i < count; i++) {
            items[i] = item(in.getInt());
            quantities[i] = (int) range(in.getInt(), 0, MAX_QUANTITY, "quantity");
        }
        return new ShoppingCart(cart, create == 1, add, items, quantities);
    }

    private static BuyRequest buyRequest(ByteBuffer in) {
        long cart = id(in.getLong(), "cart id", false);
        String uname = getString(in);
        String password = getString(in);
        long customer = id(in.getLong(), "new customer id", true);
        long address = id(in.getLong(), "new address id", true);
        int country = range(in.get(), 1, Scale.COUNTRIES, "country id");
        if (uname.isEmpty() && (customer == 0 || address == 0)) {
            throw new IllegalArgumentException("registering a customer needs a new customer id and address id");
        }
        return new BuyRequest(cart, uname, password, customer, address, country);
    }

    private static void putString(ByteBuffer out, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.US_ASCII);
        if (bytes.length > MAX_STRING) {
            throw new IllegalArgumentException("string fields hold at most " + MAX_STRING + " characters");
        }
        out.put((byte) bytes.length).put(bytes);
    }

    private static String getString(ByteBuffer in) {
        int length = in.get() & 0xFF;
        if (length > MAX_STRING) {
            throw new IllegalArgumentException(
                    "string fields hold at most " + MAX_STRING + " characters, got a length of " + length);
        }
        byte[] bytes = new byte[length];
        in.get(bytes);
        for (byte b : bytes) {
            if (b < 0x20 || b > 0x7E) {
                throw new IllegalArgumentException("string fields are printable ASCII, got byte " + (b & 0xFF));
            }
        }
        return new String(bytes, StandardCharsets.US_ASCII);
    }

    private static String name(String value, String what) {
        if (value.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
        return value;
    }

    private static long id(long id, String what, boolean zeroAllowed) {
        if (id < 0 || (id == 0 && !zeroAllowed)) {
            throw new IllegalArgumentException(
                    what + " must be " + (zeroAllowed ? "0 or " : "") + "positive, got " + id);
        }
        return id;
    }

    private static int item(int id) {
        if (id < 1) {
            throw new IllegalArgumentException("an item id is positive, got " + id);
        }
        return id;
    }

    private static int subject(byte subject) {
        return range(subject, 0, Subjects.ALL.size() - 1, "subject");
    }

    private static int range(byte value, int min, int max, String what) {
        return (int) range((long) value, min, max, what);
    }

    private static long range(long value, long min, long max, String what) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(what + " must be in " + min + ".." + max + ", got " + value);
        }
        return value;
    }
}
