package io.eve.tpcw.interaction;

import io.eve.ExecutionContext;
import io.eve.h2.Sql;
import io.eve.tpcw.interaction.TpcwRequest.ShoppingCart;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The Shopping Cart interaction (the UW doCart: create, add, refresh, add a related item if empty, reset
 * the cart time, show) and the cart reads Buy Request and Buy Confirm share. Stateless and thread-safe.
 */
final class Cart {
    private final int items;
    private final Browse browse;

    /** One cart line with the item's current cost. */
    record Line(int itemId, int quantity, BigDecimal cost) {}

    Cart(int items, Browse browse) {
        this.items = items;
        this.browse = browse;
    }

    byte[] shoppingCart(Connection c, ShoppingCart request, ExecutionContext context) throws SQLException {
        long cart = request.cartId();
        if (request.create()) {
            Ids.requireOwned(cart, context, "cart");
            Jdbc.update(c, "INSERT INTO shopping_cart (sc_id, sc_time) VALUES (?, ?)", cart, Sql.localNow(context));
        } else if (Jdbc.queryLong(c, "SELECT COUNT(*) FROM shopping_cart WHERE sc_id = ?", 0, cart) == 0) {
            throw new IllegalArgumentException("shopping cart " + cart + " does not exist");
        }
        if (request.addItem() != 0) {
            addItem(c, cart, requireItem(request.addItem()));
        }
        int[] updateItems = request.updateItems();
        int[] quantities = request.updateQuantities();
        for (int i = 0; i < updateItems.length; i++) {
            if (quantities[i] == 0) {
                Jdbc.update(
                        c, "DELETE FROM shopping_cart_line WHERE scl_sc_id = ? AND scl_i_id = ?", cart, updateItems[i]);
            } else {
                Jdbc.update(
                        c,
                        "UPDATE shopping_cart_line SET scl_qty = ? WHERE scl_sc_id = ? AND scl_i_id = ?",
                        quantities[i],
                        cart,
                        updateItems[i]);
            }
        }
        if (Jdbc.queryLong(c, "SELECT COUNT(*) FROM shopping_cart_line WHERE scl_sc_id = ?", 0, cart) == 0) {
            // addRandomItemToCartIfNecessary: the first related item of a random item.
            long related = Jdbc.queryLong(
                    c,
                    "SELECT i_related1 FROM item WHERE i_id = ?",
                    1,
                    1 + context.random().nextInt(items));
            addItem(c, cart, (int) related);
        }
        Jdbc.update(c, "UPDATE shopping_cart SET sc_time = ? WHERE sc_id = ?", Sql.localNow(context), cart);
        ReplyWriter reply = new ReplyWriter(request.interaction());
        writeLines(reply, lines(c, cart));
        browse.promotion(c, reply, context);
        return reply.toBytes();
    }

    private int requireItem(int item) {
        if (item > items) {
            throw new IllegalArgumentException("item " + item + " does not exist (there are " + items + ")");
        }
        return item;
    }

    private static void addItem(Connection c, long cart, int item) throws SQLException {
        int updated = Jdbc.update(
                c,
                "UPDATE shopping_cart_line SET scl_qty = scl_qty + 1 WHERE scl_sc_id = ? AND scl_i_id = ?",
                cart,
                item);
        if (updated == 0) {
            Jdbc.update(
                    c, "INSERT INTO shopping_cart_line (scl_sc_id, scl_i_id, scl_qty) VALUES (?, ?, 1)", cart, item);
        }
    }

    /** getCart: the lines of a cart with the items' costs, by item id. */
    static List<Line> lines(Connection c, long cart) throws SQLException {
        List<Line> lines = new ArrayList<>();
        Jdbc.query(
                c,
                "SELECT l.scl_i_id, l.scl_qty, i.i_cost FROM shopping_cart_line l JOIN item i ON l.scl_i_id = i.i_id"
                        + " WHERE l.scl_sc_id = ? ORDER BY l.scl_i_id",
                row -> lines.add(new Line(row.getInt(1), row.getInt(2), row.getBigDecimal(3))),
                cart);
        return lines;
    }

    static void writeLines(ReplyWriter reply, List<Line> lines) {
        reply.putInt(lines.size());
        for (Line line : lines) {
            reply.putInt(line.itemId()).putInt(line.quantity()).putMoney(line.cost());
        }
    }
}
