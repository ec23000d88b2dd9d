package io.eve.tpcw.interaction;

import io.eve.ExecutionContext;
import io.eve.h2.Sql;
import io.eve.tpcw.interaction.TpcwRequest.AdminConfirm;
import io.eve.tpcw.interaction.TpcwRequest.AdminRequest;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
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

    byte[] adminConfirm(Connection c, AdminConfirm request, ExecutionContext context) throws SQLException {
        int item = request.itemId();
        if (item > items) {
            throw new IllegalArgumentException("item " + item + " does not exist (there are " + items + ")");
        }
        String recent =
                "SELECT o_id FROM orders ORDER BY o_date DESC, o_id DESC FETCH FIRST " + RELATED_WINDOW + " ROWS ONLY";
        List<Integer> related = new ArrayList<>(5);
        // This query's result is written to the item, so ties in quantity must break the same way everywhere.
        Jdbc.query(
                c,
                "SELECT ol.ol_i_id, SUM(ol.ol_qty) AS bought FROM orders o JOIN order_line ol ON ol.ol_o_id = o.o_id"
                        + " WHERE o.o_id IN (" + recent + ") AND ol.ol_i_id <> ? AND o.o_c_id IN"
                        + " (SELECT o2.o_c_id FROM orders o2 JOIN order_line ol2 ON ol2.ol_o_id = o2.o_id"
                        + " WHERE ol2.ol_i_id = ? AND o2.o_id IN (" + recent + "))"
                        + " GROUP BY ol.ol_i_id ORDER BY bought DESC, ol.ol_i_id FETCH FIRST 5 ROWS ONLY",
                row -> related.add(row.getInt(1)),
                item,
                item);
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
