package io.eve.tpcw.driver;

import io.eve.tpcw.interaction.Ids;
import io.eve.tpcw.interaction.Interaction;
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
import io.eve.tpcw.schema.Scale;
import io.eve.tpcw.schema.Subjects;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * One emulated browser (spec clause 5): draws the next interaction from the mix and its parameters from
 * its own seeded random source, and keeps the session state the order interactions need (its customer,
 * its cart and what it put there). Because new ids come from the browser's own id space
 * ({@link Ids}), the request stream does not depend on replies: the same seed gives the same requests.
 * A Buy Request or Buy Confirm drawn while the cart is empty becomes a Shopping Cart visit (the realised
 * mix is reported). Think time is negative-exponential, truncated at 10 times its mean (clause 5.3.1.1).
 *
 * <p>Confined to its driver thread.
 */
public final class EmulatedBrowser {
    private final long clientId;
    private final Scale scale;
    private final Mix mix;
    private final SplittableRandom random;
    private final List<Integer> cartItems = new ArrayList<>();
    private long nextId = 1;
    private long customerId;
    private String uname;
    private long cartId;
    private boolean cartFilled;

    /**
     * @param clientId the client id requests go out under (1..2^31-1); new rows get ids from its space
     * @param seed the seed of this browser's choices
     */
    public EmulatedBrowser(long clientId, Scale scale, Mix mix, long seed) {
        this.clientId = clientId;
        this.scale = scale;
        this.mix = mix;
        this.random = new SplittableRandom(seed ^ (clientId * 0x9E3779B97F4A7C15L));
        this.customerId = nurand(customerA(scale.customers()), 1, scale.customers());
        this.uname = DigSyl.of(customerId);
    }

    public long clientId() {
        return clientId;
    }

    /** The next request of this browser's session. */
    public TpcwRequest next() {
        Interaction drawn = mix.draw(random);
        switch (drawn) {
            case HOME:
                return new Home(random.nextInt(5) == 0 ? 0 : customerId);
            case NEW_PRODUCTS:
                return new NewProducts(random.nextInt(Subjects.ALL.size()));
            case BEST_SELLERS:
                return new BestSellers(random.nextInt(Subjects.ALL.size()));
            case PRODUCT_DETAIL:
                return new ProductDetail(randomItem());
            case SEARCH_REQUEST:
                return new SearchRequest();
            case SEARCH_RESULT:
                return search();
            case SHOPPING_CART:
                return cart();
            case CUSTOMER_REGISTRATION:
                return new CustomerRegistration(random.nextInt(5) == 0 ? 0 : customerId);
            case BUY_REQUEST:
                return cartFilled ? buyRequest() : cart();
            case BUY_CONFIRM:
                return cartFilled ? buyConfirm() : cart();
            case ORDER_INQUIRY:
                return new OrderInquiry(customerId);
            case ORDER_DISPLAY:
                return new OrderDisplay(uname, password(uname));
            case ADMIN_REQUEST:
                return new AdminRequest(randomItem());
            default:
                return new AdminConfirm(randomItem(), 100 + random.nextInt(99_900), random.nextInt(1_000_000));
        }
    }

    /** A think time in milliseconds for a mean of {@code meanMillis} (0 gives 0). */
    public long thinkMillis(long meanMillis) {
        if (meanMillis <= 0) {
            return 0;
        }
        double draw = -Math.log(1 - random.nextDouble()) * meanMillis;
        return (long) Math.min(draw, 10.0 * meanMillis);
    }

    private SearchResult search() {
        switch (random.nextInt(3)) {
            case 0:
                return new SearchResult(
                        SearchType.AUTHOR, DigSyl.of(1 + random.nextInt(Math.max(1, scale.authors() / 10))));
            case 1:
                return new SearchResult(
                        SearchType.TITLE, DigSyl.of(1 + random.nextInt(Math.max(1, scale.items() / 10))));
            default:
                return new SearchResult(SearchType.SUBJECT, Subjects.ALL.get(random.nextInt(Subjects.ALL.size())));
        }
    }

    private ShoppingCart cart() {
        boolean create = cartId == 0;
        if (create) {
            cartId = newId();
        }
        int add = 0;
        int[] items = new int[0];
        int[] quantities = new int[0];
        if (cartItems.isEmpty() || random.nextInt(10) < 7) {
            add = randomItem();
            if (!cartItems.contains(add)) {
                cartItems.add(add);
            }
        } else {
            int index = random.nextInt(cartItems.size());
            items = new int[] {cartItems.get(index)};
            quantities = new int[] {random.nextInt(10) == 0 ? 0 : 1 + random.nextInt(10)};
            if (quantities[0] == 0) {
                cartItems.remove(index);
            }
        }
        cartFilled = true; // the server adds a related item to a cart that would be empty
        return new ShoppingCart(cartId, create, add, items, quantities);
    }

    private BuyRequest buyRequest() {
        if (random.nextInt(5) == 0) {
            customerId = newId();
            uname = DigSyl.of(customerId);
            return new BuyRequest(cartId, "", "", customerId, newId(), 1 + random.nextInt(Scale.COUNTRIES));
        }
        return new BuyRequest(cartId, uname, password(uname), 0, 0, 1 + random.nextInt(Scale.COUNTRIES));
    }

    private BuyConfirm buyConfirm() {
        long newAddress = random.nextInt(20) == 0 ? newId() : 0;
        BuyConfirm confirm = new BuyConfirm(
                cartId, customerId, newId(), random.nextInt(6), newAddress, 1 + random.nextInt(Scale.COUNTRIES));
        cartFilled = false;
        cartItems.clear();
        return confirm;
    }

    private long newId() {
        return Ids.of(clientId, nextId++);
    }

    private int randomItem() {
        return 1 + random.nextInt(scale.items());
    }

    private static String password(String uname) {
        return uname.toLowerCase(Locale.ROOT);
    }

    /** TPC-W's non-uniform random number NURand(A, x, y) (clause 2.1.5). */
    long nurand(int a, long x, long y) {
        long r1 = random.nextInt(a + 1);
        long r2 = x + random.nextLong(y - x + 1);
        return ((r1 | r2) % (y - x + 1)) + x;
    }

    private static int customerA(int customers) {
        if (customers < 10_000) {
            return 1023;
        }
        return customers < 40_000 ? 4095 : customers < 160_000 ? 16_383 : 65_535;
    }
}
