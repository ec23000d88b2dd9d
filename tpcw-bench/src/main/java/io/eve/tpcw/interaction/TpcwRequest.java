package io.eve.tpcw.interaction;

import java.util.Arrays;

/**
 * One TPC-W interaction with its parameters, as an emulated browser sends it. Ids of rows a request
 * creates (carts, customers, addresses, orders) are chosen by the client from its own id space
 * ({@link Ids}), so they are part of the payload: the mixer can see which cart a request touches, and a
 * re-execution after a rollback creates the same rows. {@link RequestCodec} turns these into compact
 * payloads and back. Immutable.
 */
public sealed interface TpcwRequest {
    /** Which of the 14 interactions this is. */
    Interaction interaction();

    /** Home page; {@code customerId} 0 for an anonymous visitor. */
    record Home(long customerId) implements TpcwRequest {
        @Override
        public Interaction interaction() {
            return Interaction.HOME;
        }
    }

    /** The 50 newest items of a subject (index into {@code Subjects.ALL}). */
    record NewProducts(int subject) implements TpcwRequest {
        @Override
        public Interaction interaction() {
            return Interaction.NEW_PRODUCTS;
        }
    }

    /** The 50 best-selling items of a subject over the 3,333 most recent orders. */
    record BestSellers(int subject) implements TpcwRequest {
        @Override
        public Interaction interaction() {
            return Interaction.BEST_SELLERS;
        }
    }

    /** One item with its author. */
    record ProductDetail(int itemId) implements TpcwRequest {
        @Override
        public Interaction interaction() {
            return Interaction.PRODUCT_DETAIL;
        }
    }

    /** The search form (only promotional processing touches the database). */
    record SearchRequest() implements TpcwRequest {
        @Override
        public Interaction interaction() {
            return Interaction.SEARCH_REQUEST;
        }
    }

    /** A search by author last name prefix, title prefix or subject. */
    record SearchResult(SearchType type, String term) implements TpcwRequest {
        @Override
        public Interaction interaction() {
            return Interaction.SEARCH_RESULT;
        }
    }

    /** The kinds of search. */
    enum SearchType {
        AUTHOR,
        TITLE,
        SUBJECT
    }

    /**
     * Shows a cart after optionally creating it, adding one item and setting quantities (0 removes a line).
     * An empty cart gets a related item of a random item, as the UW implementation does.
     */
    record ShoppingCart(long cartId, boolean create, int addItem, int[] updateItems, int[] updateQuantities)
            implements TpcwRequest {
        public ShoppingCart {
            updateItems = updateItems.clone();
            updateQuantities = updateQuantities.clone();
        }

        @Override
        public Interaction interaction() {
            return Interaction.SHOPPING_CART;
        }

        @Override
        public int[] updateItems() {
            return updateItems.clone();
        }

        @Override
        public int[] updateQuantities() {
            return updateQuantities.clone();
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof ShoppingCart o
                    && o.cartId == cartId
                    && o.create == create
                    && o.addItem == addItem
                    && Arrays.equals(o.updateItems, updateItems)
                    && Arrays.equals(o.updateQuantities, updateQuantities);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(cartId) * 31 + Arrays.hashCode(updateItems) * 7 + addItem;
        }

        @Override
        public String toString() {
            return "ShoppingCart[" + cartId + (create ? ", new" : "") + ", add " + addItem + ", items "
                    + Arrays.toString(updateItems) + ", qty " + Arrays.toString(updateQuantities) + "]";
        }
    }

    /** The registration form; a returning customer ({@code customerId} > 0) is greeted by user name. */
    record CustomerRegistration(long customerId) implements TpcwRequest {
        @Override
        public Interaction interaction() {
            return Interaction.CUSTOMER_REGISTRATION;
        }
    }

    /**
     * Starts checkout: a returning customer logs in ({@code uname} and {@code password}, which refreshes the
     * session), or, with an empty {@code uname}, a new customer is registered with the given ids and country.
     * Then the cart is shown.
     */
    record BuyRequest(long cartId, String uname, String password, long newCustomerId, long newAddressId, int countryId)
            implements TpcwRequest {
        @Override
        public Interaction interaction() {
            return Interaction.BUY_REQUEST;
        }

        /** Whether this registers a new customer. */
        public boolean registers() {
            return uname.isEmpty();
        }
    }

    /**
     * Places the order for the cart's contents ({@code orderId} from the client's id space) and empties the
     * cart; {@code newAddressId} 0 ships to the customer's address, otherwise a new address is entered.
     */
    record BuyConfirm(long cartId, long customerId, long orderId, int shipType, long newAddressId, int countryId)
            implements TpcwRequest {
        @Override
        public Interaction interaction() {
            return Interaction.BUY_CONFIRM;
        }
    }

    /** The order-status form (no database access). */
    record OrderInquiry(long customerId) implements TpcwRequest {
        @Override
        public Interaction interaction() {
            return Interaction.ORDER_INQUIRY;
        }
    }

    /** The customer's most recent order with its lines, after checking the password. */
    record OrderDisplay(String uname, String password) implements TpcwRequest {
        @Override
        public Interaction interaction() {
            return Interaction.ORDER_DISPLAY;
        }
    }

    /** The item-update form: one item with its author. */
    record AdminRequest(int itemId) implements TpcwRequest {
        @Override
        public Interaction interaction() {
            return Interaction.ADMIN_REQUEST;
        }
    }

    /** Sets an item's cost and images and recomputes its related items from recent orders. */
    record AdminConfirm(int itemId, long costCents, int imageNumber) implements TpcwRequest {
        @Override
        public Interaction interaction() {
            return Interaction.ADMIN_CONFIRM;
        }
    }
}
