package io.eve.h2;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.merkle.ApplyResult;
import io.eve.merkle.Digest;
import io.eve.merkle.codec.BufferSink;
import io.eve.merkle.codec.Source;
import java.math.BigDecimal;
import java.sql.PreparedStatement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class CanonicalTypesTest {
    private static final String[] ALL_TYPES = {
        "CREATE TABLE v (id INT PRIMARY KEY, ti TINYINT, si SMALLINT, bi BIGINT, de DECIMAL(10, 3), df DECFLOAT,"
                + " d DOUBLE PRECISION, r REAL, s VARCHAR(20), c CHAR(5), b BOOLEAN, dt DATE, tm TIME, ts TIMESTAMP,"
                + " tz TIMESTAMP WITH TIME ZONE, bin BINARY(3), vb VARBINARY(10), bl BLOB, cl CLOB, u UUID)"
    };

    private static H2State newState() {
        return H2State.builder()
                .url(Fixtures.newUrl())
                .bucketsPerTable(8)
                .schema(ALL_TYPES)
                .build();
    }

    private static void insert(H2State state, int id, Object... values) throws Exception {
        state.execute(
                (c, ctx) -> {
                    try (PreparedStatement ps = c.prepareStatement(
                            "INSERT INTO v VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                        ps.setInt(1, id);
                        for (int i = 0; i < values.length; i++) {
                            ps.setObject(i + 2, values[i]);
                        }
                        ps.executeUpdate();
                    }
                    return null;
                },
                Fixtures.context(0, 0));
    }

    private static Object[] sample(double d, BigDecimal decimal, OffsetDateTime tz) {
        return new Object[] {
            (byte) 1,
            (short) 2,
            3L,
            decimal,
            decimal,
            d,
            (float) d,
            "text",
            "ab",
            true,
            LocalDate.of(2020, 2, 29),
            LocalTime.of(23, 59, 58, 123_000_000),
            LocalDateTime.of(1999, 12, 31, 23, 59),
            tz,
            new byte[] {1, 2, 3},
            new byte[] {9},
            new byte[] {4, 5},
            "clob text",
            new UUID(1, 2)
        };
    }

    @Test
    void shouldHashEqualValuesAlikeWhateverTheirSpelling() throws Exception {
        OffsetDateTime utc = OffsetDateTime.of(2024, 5, 6, 7, 8, 9, 0, ZoneOffset.UTC);
        OffsetDateTime tokyo = utc.withOffsetSameInstant(ZoneOffset.ofHours(9));
        try (H2State a = newState();
                H2State b = newState()) {
            insert(a, 1, sample(-0.0, new BigDecimal("1.0"), utc));
            insert(b, 1, sample(0.0, new BigDecimal("1.00"), tokyo));
            insert(a, 2, sample(Double.NaN, new BigDecimal("0.000"), utc));
            insert(b, 2, sample(Double.longBitsToDouble(0x7ff8000000000001L), BigDecimal.ZERO, utc));
            Digest root = a.seal(0);
            assertThat(b.seal(0)).isEqualTo(root);
            assertThat(a.scanRoot()).isEqualTo(root);
            assertThat(b.scanRoot()).isEqualTo(root);
        }
    }

    @Test
    void shouldTellDifferentValuesApart() throws Exception {
        OffsetDateTime utc = OffsetDateTime.of(2024, 5, 6, 7, 8, 9, 0, ZoneOffset.UTC);
        try (H2State a = newState();
                H2State b = newState()) {
            insert(a, 1, sample(1.0, new BigDecimal("1.001"), utc));
            insert(b, 1, sample(1.0, new BigDecimal("1.002"), utc));
            assertThat(a.seal(0)).isNotEqualTo(b.seal(0));
        }
    }

    @Test
    void shouldCarryEveryTypeThroughATransfer() throws Exception {
        OffsetDateTime tz = OffsetDateTime.of(2024, 5, 6, 7, 8, 9, 500, ZoneOffset.ofHours(-3));
        try (H2State a = newState();
                H2State b = newState()) {
            insert(a, 1, sample(Double.NaN, new BigDecimal("12.5"), tz));
            insert(a, 2, new Object[19]);
            Digest root = a.seal(0);
            ApplyResult result = b.apply(a.deltaSince(H2State.NOTHING), 0, root);
            assertThat(result.applied()).as(result.reason()).isTrue();
            assertThat(b.scanRoot()).isEqualTo(root);
            assertThat(Fixtures.rows(b, "v")).isEqualTo(Fixtures.rows(a, "v"));
            assertThat(Fixtures.rows(b, "v").get(0)).contains("-03:00");
        }
    }

    @Test
    void shouldNormaliseAndRoundTripValuesThroughTheCodec() throws Exception {
        assertThat(encode(ColumnKind.DOUBLE, Double.longBitsToDouble(0x7ff8000000000001L)))
                .isEqualTo(encode(ColumnKind.DOUBLE, Double.NaN));
        assertThat(encode(ColumnKind.DOUBLE, -0.0)).isEqualTo(encode(ColumnKind.DOUBLE, 0.0));
        assertThat(encode(ColumnKind.REAL, -0.0f)).isEqualTo(encode(ColumnKind.REAL, 0.0f));
        assertThat(encode(ColumnKind.DECIMAL, new BigDecimal("1.0")))
                .isEqualTo(encode(ColumnKind.DECIMAL, new BigDecimal("1.00")));
        assertThat(encode(ColumnKind.INTEGER, (short) 5)).isEqualTo(encode(ColumnKind.INTEGER, 5L));
        assertThat(encode(ColumnKind.DATE, java.sql.Date.valueOf("2020-01-02")))
                .isEqualTo(encode(ColumnKind.DATE, LocalDate.of(2020, 1, 2)));
        Object value =
                ColumnKind.TIMESTAMP_TZ.normalize(OffsetDateTime.of(2020, 1, 1, 1, 0, 0, 7, ZoneOffset.ofHours(1)));
        BufferSink sink = new BufferSink(16);
        ColumnKind.TIMESTAMP_TZ.encodeForWire(value, sink);
        assertThat(ColumnKind.TIMESTAMP_TZ.decode(new Source(sink.toByteArray())))
                .isEqualTo(value);
    }

    private static byte[] encode(ColumnKind kind, Object value) throws Exception {
        BufferSink sink = new BufferSink(16);
        kind.encode(kind.normalize(value), sink);
        return sink.toByteArray();
    }
}
