package io.eve.tpcw.interaction;

import io.eve.ExecutionContext;
import io.eve.h2.Sql;
import io.eve.tpcw.interaction.TpcwRequest.AdminConfirm;
import io.eve.tpcw.interaction.TpcwRequest.AdminRequest;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Admin Request (show an item) and Admin Confirm (adminUpdate: new cost and images, related items
 * recomputed from what the item's buyers bought in the 10,000 most recent orders). Stateless and
 * thread-safe.
 */
final class Admin {
    /** Admin Confirm looks at this many most recent orders (spec clause 2.16.3). */
    static final int RELATED_WINDOW = 10_000;

    private final int items;
    private final Browse browse;

    Admin(int items, Browse browse) {
        this.items = items;
        this.browse = browse;
    }

    byte[] adminRequest(Connection c, AdminRequest request) throws SQLException {
        ReplyWriter reply = new ReplyWriter(request.interaction());
        browse.book(c, reply, request.itemId());
        return reply.toBytes();
    }

    /**
     * The (at most five) items most bought by the customers who bought {@code item} among the {@code window}
     * most recent orders, counting only those orders, best first with ties broken by item id (the result is
     * written to the item, so it must be the same on every replica).
     *
     * <p>Three steps rather than one statement with the window as an {@code IN} subquery: H2 reuses an
     * uncorrelated subquery's result only while no table has changed, so with a concurrent writer it
     * re-sorted the recent orders for every joined row and one Admin Confirm ran for minutes. Here the
     * window is its oldest (date, id) pair, found once through the {@code orders_date} index, and the
     * buyers are fetched once and passed as an array.
     */
    static List<Integer> relatedItems(Connection c, int item, int window) throws SQLException {
        Object[] oldest = new Object[2];
        Jdbc.query(
                c,
                "SELECT o_date, o_id FROM orders ORDER BY o_date DESC, o_id DESC OFFSET ? ROWS FETCH NEXT 1 ROW ONLY",
                row -> {
                    oldest[0] = row.getObject(1, LocalDateTime.class);
                    oldest[1] = row.getLong(2);
                },
                window - 1);
        // No window-th order: every order is recent. (o_date, o_id) is unique, so the window is exact.
        String inWindow = oldest[0] == null ? "TRUE" : "(%1$s.o_date, %1$s.o_id) >= (?, ?)";
        Object[] bounds = oldest[0] == null ? new Object[0] : oldest;
        List<Long> buyers = new ArrayList<>();
        Jdbc.query(
                c,
                "SELECT DISTINCT o.o_c_id FROM order_line ol JOIN orders o ON o.o_id = ol.ol_o_id"
                        + " WHERE ol.ol_i_id = ? AND " + inWindow.formatted("o") + " ORDER BY o.o_c_id",
                row -> buyers.add(row.getLong(1)),
                concat(new Object[] {item}, bounds));
        List<Integer> related = new ArrayList<>(5);
        if (buyers.isEmpty()) {
            return related;
        }
        Jdbc.query(
                c,
                "SELECT ol.ol_i_id, SUM(ol.ol_qty) AS bought FROM orders o JOIN order_line ol ON ol.ol_o_id = o.o_id"
                        + " WHERE o.o_c_id = ANY(?) AND ol.ol_i_id <> ? AND " + inWindow.formatted("o")
                        + " GROUP BY ol.ol_i_id ORDER BY bought DESC, ol.ol_i_id FETCH FIRST 5 ROWS ONLY",
                row -> related.add(row.getInt(1)),
                concat(new Object[] {buyers.toArray(new Long[0]), item}, bounds));
        return related;
    }

    private static Object[] concat(Object[] first, Object[] second) {
        Object[] all = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, all, first.length, second.length);
        return all;
    }

    byte[] adminConfirm(Connection c, AdminConfirm request, ExecutionContext context) throws SQLException {
        int item = request.itemId();
        if (item > items) {
            throw new IllegalArgumentException("item " + item + " does not exist (there are " + items + ")");
        }
        List<Integer> related = relatedItems(c, item, RELATED_WINDOW);
        for (int next = item % items + 1; related.size() < 5; next = next % items + 1) {
            if (next != item && !related.contains(next)) {
                related.add(next); // too few buyers: pad with the following item ids, as the UW code does
            }
        }
        String image = "img" + request.imageNumber() % 100 + "/image_" + request.imageNumber() + ".gif";
        String thumbnail = "img" + request.imageNumber() % 100 + "/thumb_" + request.imageNumber() + ".gif";
        Jdbc.update(
                c,
                "UPDATE item SET i_cost = ?, i_image = ?, i_thumbnail = ?, i_pub_date = ?, i_related1 = ?,"
                        + " i_related2 = ?, i_related3 = ?, i_related4 = ?, i_related5 = ? WHERE i_id = ?",
                BigDecimal.valueOf(request.costCents(), 2),
                image,
                thumbnail,
                Sql.today(context),
                related.get(0),
                related.get(1),
                related.get(2),
                related.get(3),
                related.get(4),
                item);
        ReplyWriter reply = new ReplyWriter(request.interaction());
        browse.book(c, reply, item);
        return reply.toBytes();
    }
}
