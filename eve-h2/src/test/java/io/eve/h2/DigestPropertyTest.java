package io.eve.h2;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.merkle.Digest;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The incremental digests equal a full rescan after random DML, whatever mix of MERGE, cascading
 * deletes, key updates, rolled-back transactions and failed statements produced it; and rolling back
 * restores every sealed root.
 */
class DigestPropertyTest {

    @Property(tries = 12)
    void shouldMatchAFullRescanAfterRandomDml(@ForAll long seed, @ForAll @IntRange(min = 1, max = 4) int batches)
            throws Exception {
        Random random = new Random(seed);
        try (H2State state = Fixtures.newShop(8, 12)) {
            List<Digest> roots = new ArrayList<>(List.of(state.rootAt(0)));
            for (int batch = 1; batch <= batches; batch++) {
                for (int request = 0; request < 6; request++) {
                    runRandomRequest(state, random, batch, request);
                }
                Digest root = state.seal(batch);
                assertThat(root).as("seed %d batch %d", seed, batch).isEqualTo(state.scanRoot());
                roots.add(root);
            }
            int target = random.nextInt(batches + 1);
            state.rollbackTo(target);
            assertThat(state.scanRoot()).isEqualTo(roots.get(target));
        }
    }

    private static void runRandomRequest(H2State state, Random random, int batch, int request) throws Exception {
        List<String> sql = new ArrayList<>();
        for (int i = 0; i < 1 + random.nextInt(4); i++) {
            sql.add(randomStatement(random));
        }
        boolean abort = random.nextInt(5) == 0;
        try {
            state.execute(
                    (c, ctx) -> {
                        try (Statement s = c.createStatement()) {
                            for (String statement : sql) {
                                try {
                                    s.executeUpdate(statement);
                                } catch (SQLException e) {
                                    // Duplicate keys and missing parents: H2 undoes the statement only.
                                }
                            }
                        }
                        if (abort) {
                            throw new IllegalStateException("request aborts");
                        }
                        return null;
                    },
                    Fixtures.context(batch, request));
        } catch (IllegalStateException expected) {
            // The transaction rolled back; its changes must not count.
        }
    }

    private static String randomStatement(Random random) {
        int c = random.nextInt(20);
        int o = random.nextInt(20);
        switch (random.nextInt(9)) {
            case 0:
                return "INSERT INTO customer (id, name, balance) VALUES (" + c + ", 'r" + c + "', "
                        + random.nextInt(999) + ".25)";
            case 1:
                return "MERGE INTO customer (id, name, vip) KEY (id) VALUES (" + c + ", 'm" + random.nextInt(9) + "', "
                        + random.nextBoolean() + ")";
            case 2:
                return "DELETE FROM customer WHERE id = " + c; // cascades to orders and lines
            case 3:
                return "INSERT INTO orders (id, customer_id, total, placed) VALUES (" + o + ", " + c + ", "
                        + random.nextInt(100) + ".5, TIMESTAMP WITH TIME ZONE '2022-01-01 10:00:00-05')";
            case 4:
                return "INSERT INTO line VALUES (" + o + ", " + random.nextInt(4) + ", " + random.nextInt(9) + ", 0.5),"
                        + " (" + o + ", 9, 1, 1.0)";
            case 5:
                return "UPDATE line SET qty = qty + 1 WHERE order_id = " + o;
            case 6:
                return "UPDATE customer SET id = " + (100 + c) + " WHERE id = " + c;
            case 7:
                return "MERGE INTO line l USING (SELECT id FROM orders WHERE id < " + o + ") s ON l.order_id = s.id"
                        + " AND l.n = 1 WHEN MATCHED THEN UPDATE SET qty = 7 WHEN NOT MATCHED THEN INSERT VALUES"
                        + " (s.id, 1, 1, 2.0)";
            default:
                return "DELETE FROM orders WHERE id = " + o;
        }
    }
}
