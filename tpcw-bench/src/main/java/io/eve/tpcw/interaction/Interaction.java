package io.eve.tpcw.interaction;

/**
 * The 14 web interactions of TPC-W (spec clause 2), each with the one-byte code that opens its payload.
 * Browse interactions read only; order interactions may write.
 */
public enum Interaction {
    HOME(1, "Home"),
    NEW_PRODUCTS(2, "New Products"),
    BEST_SELLERS(3, "Best Sellers"),
    PRODUCT_DETAIL(4, "Product Detail"),
    SEARCH_REQUEST(5, "Search Request"),
    SEARCH_RESULT(6, "Search Result"),
    SHOPPING_CART(7, "Shopping Cart"),
    CUSTOMER_REGISTRATION(8, "Customer Registration"),
    BUY_REQUEST(9, "Buy Request"),
    BUY_CONFIRM(10, "Buy Confirm"),
    ORDER_INQUIRY(11, "Order Inquiry"),
    ORDER_DISPLAY(12, "Order Display"),
    ADMIN_REQUEST(13, "Admin Request"),
    ADMIN_CONFIRM(14, "Admin Confirm");

    private static final Interaction[] BY_CODE = new Interaction[15];

    static {
        for (Interaction interaction : values()) {
            BY_CODE[interaction.code] = interaction;
        }
    }

    private final int code;
    private final String title;

    Interaction(int code, String title) {
        this.code = code;
        this.title = title;
    }

    /** The payload's first byte. */
    public int code() {
        return code;
    }

    /** The spec's name, e.g. "Best Sellers". */
    public String title() {
        return title;
    }

    /** The interaction with {@code code}; an unknown code is an {@link IllegalArgumentException}. */
    public static Interaction ofCode(int code) {
        if (code < 1 || code >= BY_CODE.length) {
            throw new IllegalArgumentException("unknown TPC-W interaction code " + code + ", expected 1..14");
        }
        return BY_CODE[code];
    }
}
