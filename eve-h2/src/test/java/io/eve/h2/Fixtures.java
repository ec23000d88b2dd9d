package io.eve.h2;

import io.eve.ExecutionContext;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** A small shop schema with cascades, composite keys and most column types, and helpers to drive it. */
final class Fixtures {
    private static final AtomicInteger NAMES = new AtomicInteger();

    static final String[] SCHEMA = {
        "CREATE TABLE customer (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL, balance DECIMAL(12, 2),"
                + " vip BOOLEAN, since DATE)",
        "CREATE TABLE orders (id BIGINT PRIMARY KEY, customer_id INT NOT NULL REFERENCES customer (id)"
                + " ON DELETE CASCADE, total DOUBLE PRECISION, placed TIMESTAMP WITH TIME ZONE,"
                + " note CHAR(4), blob_data VARBINARY(16))",
        "CREATE TABLE line (order_id BIGINT NOT NULL REFERENCES orders (id) ON DELETE CASCADE, n SMALLINT NOT NULL,"
                + " qty INT, price REAL, PRIMARY KEY (order_id, n))"
    };

    private Fixtures() {}

    static String newUrl() {
        return "jdbc:h2:mem:eve-h2-test-" + NAMES.incrementAndGet();
    }

    static H2State newState(int buckets) {
        return H2State.builder()
                .url(newUrl())
                .bucketsPerTable(buckets)
                .schema(SCHEMA)
                .build();
    }

    static ExecutionContext context(long batch, int index) {
        return new ExecutionContext(batch, index, 1_700_000_000_000L + batch * 1000, 42 + batch, 1, index);
    }

    /** Runs SQL statements as one request. */
    static void run(H2State state, long batch, int index, String... sql) throws Exception {
        state.execute(
                (c, ctx) -> {
                    try (Statement s = c.createStatement()) {
                        for (String statement : sql) {
                            s.executeUpdate(statement);
                        }
                    }
                    return new byte[0];
                },
                context(batch, index));
    }

    /** Loads {@code customers} customers with one order and two lines each, then seals version 0. */
    static H2State newShop(int buckets, int customers) throws Exception {
        H2State state = newState(buckets);
        state.load((c, ctx) -> {
            try (Statement s = c.createStatement()) {
                for (int i = 0; i < customers; i++) {
                    s.executeUpdate("INSERT INTO customer VALUES (" + i + ", 'c" + i + "', " + (i * 10) + ".50, "
                            + (i % 2 == 0) + ", DATE '2020-01-01' + " + i + ")");
                    s.executeUpdate("INSERT INTO orders VALUES (" + i + ", " + i + ", " + (i * 1.25)
                            + ", TIMESTAMP WITH TIME ZONE '2021-03-04 05:06:07+02', 'n" + (i % 10) + "', X'0A0B')");
                    s.executeUpdate("INSERT INTO line VALUES (" + i + ", 1, 3, 1.5), (" + i + ", 2, 4, 2.5)");
                }
            }
            return null;
        });
        state.seal(0);
        return state;
    }

    /** Every row of a table as strings, ordered by the first column and then the second. */
    static List<String> rows(H2State state, String table) throws Exception {
        List<String> out = new ArrayList<>();
        state.execute(
                (c, ctx) -> {
                    out.addAll(query(c, "SELECT * FROM " + table + " ORDER BY 1, 2"));
                    return null;
                },
                context(-1, 0));
        return out;
    }

    /** Changes the database without eve-h2 seeing it, the way a bug or an intruder would. */
    static void bypass(H2State state, String sql) throws SQLException {
        try (Connection raw =
                        java.sql.DriverManager.getConnection(state.config().url(), "sa", "");
                Statement s = raw.createStatement()) {
            state.admin().begin(false, 0, () -> new java.util.SplittableRandom(0));
            try {
                s.executeUpdate(sql);
            } finally {
                state.admin().end();
            }
        }
    }

    static List<String> query(Connection c, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder row = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    Object value = rs.getObject(i);
                    if (value instanceof java.sql.Blob blob) {
                        value = blob.getBytes(1, (int) blob.length());
                    } else if (value instanceof java.sql.Clob clob) {
                        value = clob.getSubString(1, (int) clob.length());
                    }
                    row.append(
                                    value instanceof byte[] bytes
                                            ? java.util.HexFormat.of().formatHex(bytes)
                                            : value)
                            .append('|');
                }
                out.add(row.toString());
            }
        }
        return out;
    }
}
