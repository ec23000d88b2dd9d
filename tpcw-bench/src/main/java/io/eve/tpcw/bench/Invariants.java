package io.eve.tpcw.bench;

import io.eve.tpcw.schema.Scale;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Consistency checks of a TPC-W database after a run: references between orders, lines, card
 * transactions, carts and customers, and the number of orders against the Buy Confirms the browsers saw
 * succeed. Reads only.
 */
public final class Invariants {
    private static final String[][] ZERO_COUNTS = {
        {
            "order lines without their order",
            "SELECT COUNT(*) FROM order_line ol WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.o_id = ol.ol_o_id)"
        },
        {
            "orders without lines",
            "SELECT COUNT(*) FROM orders o WHERE NOT EXISTS"
                    + " (SELECT 1 FROM order_line ol WHERE ol.ol_o_id = o.o_id)"
        },
        {
            "orders without a card transaction",
            "SELECT COUNT(*) FROM orders o WHERE NOT EXISTS" + " (SELECT 1 FROM cc_xacts cx WHERE cx.cx_o_id = o.o_id)"
        },
        {
            "card transactions without an order",
            "SELECT COUNT(*) FROM cc_xacts cx WHERE NOT EXISTS" + " (SELECT 1 FROM orders o WHERE o.o_id = cx.cx_o_id)"
        },
        {
            "orders of unknown customers",
            "SELECT COUNT(*) FROM orders o WHERE NOT EXISTS" + " (SELECT 1 FROM customer c WHERE c.c_id = o.o_c_id)"
        },
        {
            "orders shipped to unknown addresses",
            "SELECT COUNT(*) FROM orders o WHERE NOT EXISTS"
                    + " (SELECT 1 FROM address a WHERE a.addr_id = o.o_ship_addr_id)"
        },
        {
            "customers without an address",
            "SELECT COUNT(*) FROM customer c WHERE NOT EXISTS"
                    + " (SELECT 1 FROM address a WHERE a.addr_id = c.c_addr_id)"
        },
        {
            "cart lines without their cart",
            "SELECT COUNT(*) FROM shopping_cart_line l WHERE NOT EXISTS"
                    + " (SELECT 1 FROM shopping_cart s WHERE s.sc_id = l.scl_sc_id)"
        },
        {"cart lines with a quantity below 1", "SELECT COUNT(*) FROM shopping_cart_line WHERE scl_qty < 1"},
        {
            "order lines of unknown items",
            "SELECT COUNT(*) FROM order_line ol WHERE NOT EXISTS" + " (SELECT 1 FROM item i WHERE i.i_id = ol.ol_i_id)"
        }
    };

    private Invariants() {}

    /**
     * The violated invariants, described; empty if all hold.
     *
     * @param buyConfirms Buy Confirms acknowledged as successful: each must have added exactly one order
     */
    public static List<String> check(Connection c, Scale scale, long buyConfirms) throws SQLException {
        List<String> violations = new ArrayList<>();
        for (String[] check : ZERO_COUNTS) {
            long count = count(c, check[1]);
            if (count != 0) {
                violations.add(count + " " + check[0]);
            }
        }
        long orders = count(c, "SELECT COUNT(*) FROM orders");
        if (orders != scale.orders() + buyConfirms) {
            violations.add(orders + " orders, expected " + scale.orders() + " initial + " + buyConfirms
                    + " acknowledged Buy Confirms");
        }
        return violations;
    }

    private static long count(Connection c, String sql) throws SQLException {
        try (Statement statement = c.createStatement();
                ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getLong(1);
        }
    }
}
