package io.eve.tpcw.interaction;

import io.eve.ExecutionContext;
import io.eve.h2.Sql;
import io.eve.tpcw.interaction.TpcwRequest.BuyConfirm;
import io.eve.tpcw.interaction.TpcwRequest.BuyRequest;
import io.eve.tpcw.interaction.TpcwRequest.CustomerRegistration;
import io.eve.tpcw.interaction.TpcwRequest.OrderDisplay;
import io.eve.tpcw.schema.DigSyl;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The order interactions that touch the database: Customer Registration, Buy Request (log-in or
 * registration), Buy Confirm (the order, its lines, stock, the card transaction, the emptied cart) and
 * Order Display. Stateless and thread-safe.
 */
final class Orders {
    private static final String[] SHIP_TYPES = {"AIR", "UPS", "FEDEX", "SHIP", "COURIER", "MAIL"};
    private static final String[] CARDS = {"VISA", "MASTERCARD", "DISCOVER", "AMEX", "DINERS"};
    private static final BigDecimal TAX = new BigDecimal("0.0825");

    private final Cart cart;

    Orders(Cart cart) {
        this.cart = cart;
    }

    byte[] customerRegistration(Connection c, CustomerRegistration request) throws SQLException {
        ReplyWriter reply = new ReplyWriter(request.interaction());
        if (request.customerId() != 0) {
            int found = Jdbc.query(
                    c,
                    "SELECT c_uname FROM customer WHERE c_id = ?",
                    row -> reply.putString(row.getString(1)),
                    request.customerId());
            reply.putByte(found);
        }
        return reply.toBytes();
    }

    byte[] buyRequest(Connection c, BuyRequest request, ExecutionContext context) throws SQLException {
        ReplyWriter reply = new ReplyWriter(request.interaction());
        long customer;
        if (request.registers()) {
            customer = register(c, request, context);
        } else {
            customer = Jdbc.queryLong(
                    c,
                    "SELECT c.c_id FROM customer c JOIN address a ON c.c_addr_id = a.addr_id"
                            + " JOIN country co ON a.addr_co_id = co.co_id WHERE c.c_uname = ? AND c.c_passwd = ?"
                            + " ORDER BY c.c_id FETCH FIRST 1 ROW ONLY",
                    0,
                    request.uname(),
                    request.password());
            if (customer == 0) {
                throw new IllegalArgumentException("unknown user name or wrong password for " + request.uname());
            }
            LocalDateTime now = Sql.localNow(context);
            Jdbc.update(
                    c,
                    "UPDATE customer SET c_login = ?, c_expiration = ? WHERE c_id = ?",
                    now,
                    now.plusHours(2),
                    customer);
        }
        reply.putLong(customer);
        Cart.writeLines(reply, Cart.lines(c, request.cartId()));
        return reply.toBytes();
    }

    private static long register(Connection c, BuyRequest request, ExecutionContext context) throws SQLException {
        long customer = Ids.requireOwned(request.newCustomerId(), context, "customer");
        long address = Ids.requireOwned(request.newAddressId(), context, "address");
        SplittableRandom random = context.random();
        enterAddress(c, address, request.countryId(), random);
        String uname = DigSyl.of(customer);
        LocalDateTime now = Sql.localNow(context);
        Jdbc.update(
                c,
                "INSERT INTO customer VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                customer,
                uname,
                uname.toLowerCase(Locale.ROOT),
                text(random, 8, 15),
                text(random, 8, 15),
                address,
                "555" + (1_000_000 + random.nextInt(9_000_000)),
                uname + "@example.com",
                now.toLocalDate(),
                now.toLocalDate(),
                now,
                now.plusHours(2),
                BigDecimal.valueOf(random.nextInt(51), 2),
                BigDecimal.ZERO.setScale(2),
                BigDecimal.ZERO.setScale(2),
                now.toLocalDate().minusDays(6570 + random.nextInt(20_000)),
                text(random, 100, 500));
        return customer;
    }

    private static void enterAddress(Connection c, long id, int country, SplittableRandom random) throws SQLException {
        Jdbc.update(
                c,
                "INSERT INTO address VALUES (?, ?, ?, ?, ?, ?, ?)",
                id,
                text(random, 15, 40),
                text(random, 15, 40),
                text(random, 4, 30),
                text(random, 2, 20),
                text(random, 5, 10),
                country);
    }

    byte[] buyConfirm(Connection c, BuyConfirm request, ExecutionContext context) throws SQLException {
        long order = Ids.requireOwned(request.orderId(), context, "order");
        BigDecimal[] discount = {null};
        long[] billing = {0};
        Jdbc.query(
                c,
                "SELECT c_discount, c_addr_id FROM customer WHERE c_id = ?",
                row -> {
                    discount[0] = row.getBigDecimal(1);
                    billing[0] = row.getLong(2);
                },
                request.customerId());
        if (discount[0] == null) {
            throw new IllegalArgumentException("customer " + request.customerId() + " does not exist");
        }
        List<Cart.Line> lines = Cart.lines(c, request.cartId());
        if (lines.isEmpty()) {
            throw new IllegalStateException("shopping cart " + request.cartId() + " is empty");
        }
        SplittableRandom random = context.random();
        long shipping = billing[0];
        if (request.newAddressId() != 0) {
            shipping = Ids.requireOwned(request.newAddressId(), context, "address");
            enterAddress(c, shipping, request.countryId(), random);
        }
        BigDecimal keep = BigDecimal.ONE.subtract(discount[0]);
        BigDecimal subTotal = BigDecimal.ZERO;
        for (Cart.Line line : lines) {
            subTotal = subTotal.add(line.cost().multiply(BigDecimal.valueOf(line.quantity())));
        }
        subTotal = subTotal.multiply(keep).setScale(2, RoundingMode.HALF_EVEN);
        BigDecimal tax = subTotal.multiply(TAX).setScale(2, RoundingMode.HALF_EVEN);
        BigDecimal total = subTotal.add(tax).add(BigDecimal.valueOf(300 + 100L * lines.size(), 2));
        LocalDateTime now = Sql.localNow(context);
        Jdbc.update(
                c,
                "INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'PENDING')",
                order,
                request.customerId(),
                now,
                subTotal,
                tax,
                total,
                SHIP_TYPES[request.shipType()],
                now.plusDays(1 + random.nextInt(7)),
                billing[0],
                shipping);
        int number = 0;
        for (Cart.Line line : lines) { // by item id, so concurrent orders lock items in one order
            Jdbc.update(
                    c,
                    "INSERT INTO order_line VALUES (?, ?, ?, ?, ?, ?)",
                    order,
                    ++number,
                    line.itemId(),
                    line.quantity(),
                    discount[0],
                    text(random, 20, 100));
            Jdbc.update(
                    c,
                    "UPDATE item SET i_stock = CASE WHEN i_stock - ? < 10 THEN i_stock - ? + 21 ELSE i_stock - ? END"
                            + " WHERE i_id = ?",
                    line.quantity(),
                    line.quantity(),
                    line.quantity(),
                    line.itemId());
        }
        long country = Jdbc.queryLong(c, "SELECT addr_co_id FROM address WHERE addr_id = ?", 1, shipping);
        Jdbc.update(
                c,
                "INSERT INTO cc_xacts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                order,
                CARDS[random.nextInt(CARDS.length)],
                Long.toString(4_000_000_000_000_000L + random.nextLong(999_999_999_999_999L)),
                text(random, 14, 30),
                now.toLocalDate().plusDays(30 + random.nextInt(700)),
                text(random, 15, 15),
                total,
                now,
                (int) country);
        Jdbc.update(c, "DELETE FROM shopping_cart_line WHERE scl_sc_id = ?", request.cartId());
        return new ReplyWriter(request.interaction())
                .putLong(order)
                .putMoney(total)
                .putInt(lines.size())
                .toBytes();
    }

    byte[] orderDisplay(Connection c, OrderDisplay request) throws SQLException {
        ReplyWriter reply = new ReplyWriter(request.interaction());
        long customer = Jdbc.queryLong(
                c,
                "SELECT c_id FROM customer WHERE c_uname = ? AND c_passwd = ? ORDER BY c_id FETCH FIRST 1 ROW ONLY",
                0,
                request.uname(),
                request.password());
        if (customer == 0) {
            throw new IllegalArgumentException("unknown user name or wrong password for " + request.uname());
        }
        long order = Jdbc.queryLong(
                c,
                "SELECT o_id FROM orders WHERE o_c_id = ? ORDER BY o_date DESC, o_id DESC FETCH FIRST 1 ROW ONLY",
                0,
                customer);
        reply.putLong(order);
        if (order == 0) {
            return reply.toBytes();
        }
        Jdbc.query(
                c,
                "SELECT o.o_total, o.o_status, c.c_fname, c.c_lname, cx.cx_type, cx.cx_auth_id,"
                        + " bill.addr_city, bco.co_name, ship.addr_city, sco.co_name"
                        + " FROM orders o JOIN customer c ON o.o_c_id = c.c_id JOIN cc_xacts cx ON cx.cx_o_id = o.o_id"
                        + " JOIN address bill ON o.o_bill_addr_id = bill.addr_id"
                        + " JOIN country bco ON bill.addr_co_id = bco.co_id"
                        + " JOIN address ship ON o.o_ship_addr_id = ship.addr_id"
                        + " JOIN country sco ON ship.addr_co_id = sco.co_id WHERE o.o_id = ?",
                row -> {
                    reply.putMoney(row.getBigDecimal(1));
                    for (int column = 2; column <= 10; column++) {
                        reply.putString(row.getString(column));
                    }
                },
                order);
        int[] count = {0};
        Jdbc.query(
                c,
                "SELECT ol.ol_i_id, i.i_title, ol.ol_qty, i.i_cost FROM order_line ol JOIN item i ON ol.ol_i_id = i.i_id"
                        + " WHERE ol.ol_o_id = ? ORDER BY ol.ol_id",
                row -> {
                    reply.putInt(row.getInt(1)).putString(row.getString(2)).putInt(row.getInt(3));
                    reply.putMoney(row.getBigDecimal(4));
                    count[0]++;
                },
                order);
        return reply.putInt(count[0]).toBytes();
    }

    /** A random string of letters, length in [min, max]. */
    static String text(SplittableRandom random, int min, int max) {
        int length = min + random.nextInt(max - min + 1);
        char[] chars = new char[length];
        for (int i = 0; i < length; i++) {
            chars[i] = (char) ('a' + random.nextInt(26));
        }
        return new String(chars);
    }
}
