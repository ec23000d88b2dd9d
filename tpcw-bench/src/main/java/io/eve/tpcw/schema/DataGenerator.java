package io.eve.tpcw.schema;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.SplittableRandom;

/**
 * Populates an empty TPC-W schema (spec clause 4.7, following the UW populate program) from a seed and a
 * fixed base time instead of the wall clock, so every replica that runs it with the same arguments builds
 * byte-identical tables, and so the same state root. Shopping carts start empty.
 *
 * <p>Not thread-safe; one call of {@link #populate} per database.
 */
public final class DataGenerator {
    /** The "now" of the initial population: 2026-11-01T00:00Z. */
    public static final LocalDateTime BASE_TIME = LocalDateTime.of(2026, 11, 1, 0, 0);

    /** {@link #BASE_TIME} in milliseconds since the epoch. */
    public static final long BASE_MILLIS = BASE_TIME.toInstant(ZoneOffset.UTC).toEpochMilli();

    private static final int BATCH = 500;
    private static final String[] CARDS = {"VISA", "MASTERCARD", "DISCOVER", "AMEX", "DINERS"};
    private static final String[] BACKINGS = {"HARDBACK", "PAPERBACK", "USED", "AUDIO", "LIMITED-EDITION"};
    private static final String[] SHIP_TYPES = {"AIR", "UPS", "FEDEX", "SHIP", "COURIER", "MAIL"};
    private static final String[] STATUSES = {"PROCESSING", "SHIPPED", "PENDING", "DENIED"};

    private final Scale scale;
    private final long seed;

    public DataGenerator(Scale scale, long seed) {
        this.scale = scale;
        this.seed = seed;
    }

    public Scale scale() {
        return scale;
    }

    /** Inserts every initial row through {@code connection}; the caller commits. */
    public void populate(Connection connection) throws SQLException {
        SplittableRandom random = new SplittableRandom(seed);
        countries(connection);
        authors(connection, random.split());
        items(connection, random.split());
        addresses(connection, random.split());
        customers(connection, random.split());
        orders(connection, random.split());
    }

    private void countries(Connection c) throws SQLException {
        try (Rows rows = new Rows(c, "INSERT INTO country VALUES (?, ?, ?, ?)")) {
            for (int id = 1; id <= Scale.COUNTRIES; id++) {
                rows.add(id, "Country-" + id, money(0.5 + id * 0.37).setScale(6, RoundingMode.UNNECESSARY), "CUR" + id);
            }
        }
    }

    private void authors(Connection c, SplittableRandom r) throws SQLException {
        try (Rows rows = new Rows(c, "INSERT INTO author VALUES (?, ?, ?, ?, ?, ?)")) {
            for (int id = 1; id <= scale.authors(); id++) {
                rows.add(
                        id,
                        text(r, 3, 20),
                        DigSyl.of(id),
                        text(r, 1, 20),
                        LocalDate.of(1800, 1, 1).plusDays(r.nextInt(365 * 150)),
                        text(r, 125, 500));
            }
        }
    }

    private void items(Connection c, SplittableRandom r) throws SQLException {
        int items = scale.items();
        try (Rows rows = new Rows(
                c, "INSERT INTO item VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (int id = 1; id <= items; id++) {
                int author = id <= scale.authors() ? id : 1 + r.nextInt(scale.authors());
                LocalDate published = LocalDate.of(1930, 1, 1).plusDays(r.nextInt(365 * 70));
                BigDecimal srp = money(1 + r.nextDouble() * 998.99);
                BigDecimal cost =
                        srp.multiply(BigDecimal.valueOf(50 + r.nextInt(51), 2)).setScale(2, RoundingMode.HALF_EVEN);
                int[] related = related(r, id, items);
                rows.add(
                        id,
                        DigSyl.of(id) + " " + text(r, 10, 50),
                        author,
                        published,
                        text(r, 14, 60),
                        Subjects.ALL.get(r.nextInt(Subjects.ALL.size())),
                        text(r, 100, 500),
                        related[0],
                        related[1],
                        related[2],
                        related[3],
                        related[4],
                        "img" + id % 100 + "/thumb_" + id + ".gif",
                        "img" + id % 100 + "/image_" + id + ".gif",
                        srp,
                        cost,
                        published.plusDays(1 + r.nextInt(30)),
                        10 + r.nextInt(21),
                        digits(r, 13),
                        20 + r.nextInt(9980),
                        BACKINGS[r.nextInt(BACKINGS.length)],
                        (1 + r.nextInt(99)) + "x" + (1 + r.nextInt(99)) + "x" + (1 + r.nextInt(99)));
            }
        }
    }

    /** Five distinct related items, none of them the item itself. */
    private static int[] related(SplittableRandom r, int id, int items) {
        int[] related = new int[5];
        for (int k = 0; k < 5; k++) {
            int candidate;
            boolean fresh;
            do {
                candidate = 1 + r.nextInt(items);
                fresh = candidate != id;
                for (int j = 0; j < k && fresh; j++) {
                    fresh = related[j] != candidate;
                }
            } while (!fresh);
            related[k] = candidate;
        }
        return related;
    }

    private void addresses(Connection c, SplittableRandom r) throws SQLException {
        try (Rows rows = new Rows(c, "INSERT INTO address VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            for (long id = 1; id <= scale.addresses(); id++) {
                rows.add(
                        id,
                        text(r, 15, 40),
                        text(r, 15, 40),
                        text(r, 4, 30),
                        text(r, 2, 20),
                        text(r, 5, 10),
                        1 + r.nextInt(Scale.COUNTRIES));
            }
        }
    }

    private void customers(Connection c, SplittableRandom r) throws SQLException {
        try (Rows rows =
                new Rows(c, "INSERT INTO customer VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (long id = 1; id <= scale.customers(); id++) {
                String uname = DigSyl.of(id);
                LocalDate since = BASE_TIME.toLocalDate().minusDays(1 + r.nextInt(730));
                rows.add(
                        id,
                        uname,
                        uname.toLowerCase(java.util.Locale.ROOT),
                        text(r, 8, 15),
                        text(r, 8, 15),
                        1 + (long) r.nextInt(scale.addresses()),
                        digits(r, 16),
                        uname + "@" + text(r, 2, 9) + ".com",
                        since,
                        since.plusDays(r.nextInt(61)),
                        BASE_TIME,
                        BASE_TIME.plusHours(2),
                        BigDecimal.valueOf(r.nextInt(51), 2),
                        BigDecimal.ZERO.setScale(2),
                        money(r.nextDouble() * 99_999.99),
                        LocalDate.of(1880, 1, 1).plusDays(r.nextInt(365 * 120)),
                        text(r, 100, 500));
            }
        }
    }

    private void orders(Connection c, SplittableRandom r) throws SQLException {
        try (Rows orders = new Rows(c, "INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
                Rows lines = new Rows(c, "INSERT INTO order_line VALUES (?, ?, ?, ?, ?, ?)");
                Rows xacts = new Rows(c, "INSERT INTO cc_xacts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (long id = 1; id <= scale.orders(); id++) {
                long customer = 1 + r.nextInt(scale.customers());
                LocalDateTime date = BASE_TIME.minusDays(1 + r.nextInt(60)).plusSeconds(r.nextInt(86_400));
                BigDecimal subTotal = money(10 + r.nextDouble() * 9_989.99);
                BigDecimal tax = subTotal.multiply(new BigDecimal("0.0825")).setScale(2, RoundingMode.HALF_EVEN);
                BigDecimal total = subTotal.add(tax).add(money(3 + r.nextInt(5)));
                orders.add(
                        id,
                        customer,
                        date,
                        subTotal,
                        tax,
                        total,
                        SHIP_TYPES[r.nextInt(SHIP_TYPES.length)],
                        date.plusDays(r.nextInt(8)),
                        1 + (long) r.nextInt(scale.addresses()),
                        1 + (long) r.nextInt(scale.addresses()),
                        STATUSES[r.nextInt(STATUSES.length)]);
                int lineCount = 1 + r.nextInt(5);
                for (int line = 1; line <= lineCount; line++) {
                    lines.add(
                            id,
                            line,
                            1 + r.nextInt(scale.items()),
                            1 + r.nextInt(300),
                            BigDecimal.valueOf(r.nextInt(31), 2),
                            text(r, 20, 100));
                }
                xacts.add(
                        id,
                        CARDS[r.nextInt(CARDS.length)],
                        digits(r, 16),
                        text(r, 14, 30),
                        BASE_TIME.toLocalDate().plusDays(10 + r.nextInt(720)),
                        text(r, 15, 15),
                        total,
                        date,
                        1 + r.nextInt(Scale.COUNTRIES));
            }
        }
    }

    /** A random string of letters, length in [min, max] (spec "a-string"). */
    static String text(SplittableRandom r, int min, int max) {
        int length = min + r.nextInt(max - min + 1);
        char[] chars = new char[length];
        for (int i = 0; i < length; i++) {
            chars[i] = (char) ('a' + r.nextInt(26));
        }
        return new String(chars);
    }

    private static String digits(SplittableRandom r, int length) {
        char[] chars = new char[length];
        for (int i = 0; i < length; i++) {
            chars[i] = (char) ('0' + r.nextInt(10));
        }
        return new String(chars);
    }

    private static BigDecimal money(double value) {
        return BigDecimal.valueOf(value).setScale(2, RoundingMode.HALF_EVEN);
    }

    /** A prepared INSERT executed in JDBC batches of {@value #BATCH} rows. */
    private static final class Rows implements AutoCloseable {
        private final PreparedStatement statement;
        private int pending;

        Rows(Connection connection, String sql) throws SQLException {
            this.statement = connection.prepareStatement(sql);
        }

        void add(Object... values) throws SQLException {
            for (int i = 0; i < values.length; i++) {
                statement.setObject(i + 1, values[i]);
            }
            statement.addBatch();
            if (++pending == BATCH) {
                statement.executeBatch();
                pending = 0;
            }
        }

        @Override
        public void close() throws SQLException {
            try (statement) {
                if (pending > 0) {
                    statement.executeBatch();
                }
            }
        }
    }
}
