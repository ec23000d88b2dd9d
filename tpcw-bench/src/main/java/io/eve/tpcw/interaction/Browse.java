package io.eve.tpcw.interaction;

import io.eve.ExecutionContext;
import io.eve.tpcw.interaction.TpcwRequest.BestSellers;
import io.eve.tpcw.interaction.TpcwRequest.Home;
import io.eve.tpcw.interaction.TpcwRequest.NewProducts;
import io.eve.tpcw.interaction.TpcwRequest.ProductDetail;
import io.eve.tpcw.interaction.TpcwRequest.SearchResult;
import io.eve.tpcw.schema.Subjects;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The read-only browse interactions (Home, New Products, Best Sellers, Product Detail, Search Request,
 * Search Result) and the promotional processing several pages share. Stateless and thread-safe.
 */
final class Browse {
    /** Best Sellers looks at this many most recent orders (spec clause 2.4.3). */
    static final int BEST_SELLER_WINDOW = 3333;

    private static final String RECENT_ORDERS =
            "SELECT o_id FROM orders ORDER BY o_date DESC, o_id DESC FETCH FIRST ? ROWS ONLY";

    private final int items;

    Browse(int items) {
        this.items = items;
    }

    byte[] home(Connection c, Home request, ExecutionContext context) throws SQLException {
        ReplyWriter reply = new ReplyWriter(request.interaction());
        if (request.customerId() != 0) {
            int found = Jdbc.query(
                    c,
                    "SELECT c_fname, c_lname FROM customer WHERE c_id = ?",
                    row -> reply.putString(row.getString(1)).putString(row.getString(2)),
                    request.customerId());
            reply.putByte(found);
        }
        promotion(c, reply, context);
        return reply.toBytes();
    }

    byte[] newProducts(Connection c, NewProducts request, ExecutionContext context) throws SQLException {
        ReplyWriter reply = new ReplyWriter(request.interaction());
        listItems(
                c,
                reply,
                "SELECT i.i_id, i.i_title, a.a_fname, a.a_lname FROM item i JOIN author a ON i.i_a_id = a.a_id"
                        + " WHERE i.i_subject = ? ORDER BY i.i_pub_date DESC, i.i_title, i.i_id FETCH FIRST 50 ROWS ONLY",
                Subjects.ALL.get(request.subject()));
        promotion(c, reply, context);
        return reply.toBytes();
    }

    byte[] bestSellers(Connection c, BestSellers request, ExecutionContext context) throws SQLException {
        ReplyWriter reply = new ReplyWriter(request.interaction());
        // Ties in quantity are broken by item id, so every replica returns the same 50.
        listItems(
                c,
                reply,
                "SELECT i.i_id, i.i_title, a.a_fname, a.a_lname, SUM(ol.ol_qty) AS sold"
                        + " FROM order_line ol JOIN item i ON ol.ol_i_id = i.i_id JOIN author a ON i.i_a_id = a.a_id"
                        + " WHERE ol.ol_o_id IN (" + RECENT_ORDERS + ") AND i.i_subject = ?"
                        + " GROUP BY i.i_id, i.i_title, a.a_fname, a.a_lname"
                        + " ORDER BY sold DESC, i.i_id FETCH FIRST 50 ROWS ONLY",
                BEST_SELLER_WINDOW,
                Subjects.ALL.get(request.subject()));
        promotion(c, reply, context);
        return reply.toBytes();
    }

    byte[] productDetail(Connection c, ProductDetail request) throws SQLException {
        ReplyWriter reply = new ReplyWriter(request.interaction());
        book(c, reply, request.itemId());
        return reply.toBytes();
    }

    byte[] searchRequest(Connection c, ExecutionContext context) throws SQLException {
        ReplyWriter reply = new ReplyWriter(Interaction.SEARCH_REQUEST);
        promotion(c, reply, context);
        return reply.toBytes();
    }

    byte[] searchResult(Connection c, SearchResult request, ExecutionContext context) throws SQLException {
        ReplyWriter reply = new ReplyWriter(request.interaction());
        String select = "SELECT i.i_id, i.i_title, a.a_fname, a.a_lname FROM item i JOIN author a ON i.i_a_id = a.a_id";
        String order = " ORDER BY i.i_title, i.i_id FETCH FIRST 50 ROWS ONLY";
        switch (request.type()) {
            case AUTHOR:
                listItems(c, reply, select + " WHERE a.a_lname LIKE ?" + order, request.term() + "%");
                break;
            case TITLE:
                listItems(c, reply, select + " WHERE i.i_title LIKE ?" + order, request.term() + "%");
                break;
            default:
                listItems(c, reply, select + " WHERE i.i_subject = ?" + order, request.term());
                break;
        }
        promotion(c, reply, context);
        return reply.toBytes();
    }

    /** getBook: an item with its author; writes a found flag, then the fields. */
    void book(Connection c, ReplyWriter reply, int itemId) throws SQLException {
        int found = Jdbc.query(
                c,
                "SELECT i.i_id, i.i_title, a.a_fname, a.a_lname, i.i_cost, i.i_srp, i.i_stock, i.i_pub_date,"
                        + " i.i_related1, i.i_image FROM item i JOIN author a ON i.i_a_id = a.a_id WHERE i.i_id = ?",
                row -> reply.putByte(1)
                        .putInt(row.getInt(1))
                        .putString(row.getString(2))
                        .putString(row.getString(3) + " " + row.getString(4))
                        .putMoney(row.getBigDecimal(5))
                        .putMoney(row.getBigDecimal(6))
                        .putInt(row.getInt(7))
                        .putString(row.getString(8))
                        .putInt(row.getInt(9))
                        .putString(row.getString(10)),
                itemId);
        if (found == 0) {
            reply.putByte(0);
        }
    }

    /** Promotional processing: the five related items of a random item (getRelated). */
    void promotion(Connection c, ReplyWriter reply, ExecutionContext context) throws SQLException {
        int item = 1 + context.random().nextInt(items);
        Jdbc.query(
                c,
                "SELECT j.i_id, j.i_thumbnail FROM item i JOIN item j ON j.i_id IN"
                        + " (i.i_related1, i.i_related2, i.i_related3, i.i_related4, i.i_related5)"
                        + " WHERE i.i_id = ? ORDER BY j.i_id",
                row -> reply.putInt(row.getInt(1)).putString(row.getString(2)),
                item);
    }

    private static void listItems(Connection c, ReplyWriter reply, String sql, Object... parameters)
            throws SQLException {
        int[] count = {0};
        Jdbc.query(
                c,
                sql,
                row -> {
                    reply.putInt(row.getInt(1)).putString(row.getString(2));
                    count[0]++;
                },
                parameters);
        reply.putInt(count[0]);
    }
}
