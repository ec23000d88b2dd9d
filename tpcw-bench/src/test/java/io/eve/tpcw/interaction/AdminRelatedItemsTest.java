package io.eve.tpcw.interaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.tpcw.TpcwDatabase;
import io.eve.tpcw.schema.Scale;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Admin Confirm's related items, computed in steps, against the same rule written as one SQL statement. */
class AdminRelatedItemsTest {
    private static final Scale SCALE = new Scale(100, 1, 0.25); // 648 orders

    private Connection c;

    @BeforeEach
    void setUp() throws SQLException {
        c = TpcwDatabase.newPlain("jdbc:h2:mem:tpcw-admin-related", SCALE, 7);
    }

    @AfterEach
    void tearDown() throws SQLException {
        c.close();
    }

    @ParameterizedTest(name = "window {0}")
    @ValueSource(ints = {1, 3, 40, 400, Admin.RELATED_WINDOW})
    void shouldPickTheSameItemsAsTheOneStatementRule(int window) throws SQLException {
        long orders = Jdbc.queryLong(c, "SELECT COUNT(*) FROM orders", 0);
        assertThat(orders)
                .as("the fixture needs more orders than the small windows")
                .isGreaterThan(400);
        int nonEmpty = 0;
        for (int item = 1; item <= SCALE.items(); item++) {
            List<Integer> expected = oneStatement(item, window);
            assertThat(Admin.relatedItems(c, item, window))
                    .as("item %d, window %d", item, window)
                    .isEqualTo(expected);
            nonEmpty += expected.isEmpty() ? 0 : 1;
        }
        if (window >= 40) {
            assertThat(nonEmpty).as("items with related items").isGreaterThan(SCALE.items() / 4);
        }
    }

    /** The clause 2.16.3 rule as a single statement (slow under concurrent writes, exact on a quiet database). */
    private List<Integer> oneStatement(int item, int window) throws SQLException {
        String recent = "SELECT o_id FROM orders ORDER BY o_date DESC, o_id DESC FETCH FIRST " + window + " ROWS ONLY";
        List<Integer> related = new ArrayList<>();
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
        return related;
    }
}
