package io.eve.tpcw;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.h2.H2State;
import io.eve.tpcw.schema.DigSyl;
import io.eve.tpcw.schema.Scale;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class DataGeneratorTest {
    @Test
    void shouldBuildTheSameRootFromTheSameSeed() throws Exception {
        try (H2State first = Fixtures.newState();
                H2State second = Fixtures.newState();
                H2State other = TpcwDatabase.newState(Fixtures.url(), Fixtures.SMALL, Fixtures.SEED + 1)) {
            assertThat(first.rootAt(0)).isEqualTo(second.rootAt(0));
            assertThat(first.scanRoot()).isEqualTo(first.rootAt(0));
            assertThat(other.rootAt(0)).isNotEqualTo(first.rootAt(0));
        }
    }

    @Test
    void shouldPopulateTheSpecCardinalities() throws Exception {
        Scale scale = new Scale(1000, 2, 0.1);
        String url = Fixtures.url();
        try (Connection keeper = TpcwDatabase.newPlain(url, scale, 1)) {
            assertThat(scale.customers()).isEqualTo(576);
            assertThat(count(keeper, "item")).isEqualTo(1000);
            assertThat(count(keeper, "author")).isEqualTo(250);
            assertThat(count(keeper, "country")).isEqualTo(92);
            assertThat(count(keeper, "customer")).isEqualTo(576);
            assertThat(count(keeper, "address")).isEqualTo(1152);
            assertThat(count(keeper, "orders")).isEqualTo(518);
            assertThat(count(keeper, "cc_xacts")).isEqualTo(518);
            assertThat(count(keeper, "order_line")).isBetween(518L, 5 * 518L);
            assertThat(count(keeper, "shopping_cart")).isZero();
            assertThat(count(keeper, "shopping_cart_line")).isZero();
            assertThat(query(keeper, "SELECT MAX(c) FROM (SELECT COUNT(*) c FROM order_line GROUP BY ol_o_id)"))
                    .isLessThanOrEqualTo(5);
            assertThat(query(keeper, "SELECT COUNT(*) FROM customer WHERE c_uname = '" + DigSyl.of(12) + "'"))
                    .isEqualTo(1);
        }
    }

    @Test
    void shouldSpellDigitsAsSyllables() {
        assertThat(DigSyl.of(1024)).isEqualTo("OGBAALRE");
        assertThat(DigSyl.of(0)).isEqualTo("BA");
    }

    private static long count(Connection c, String table) throws Exception {
        return query(c, "SELECT COUNT(*) FROM " + table);
    }

    private static long query(Connection c, String sql) throws Exception {
        try (Statement s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        }
    }
}
