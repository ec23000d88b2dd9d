package io.eve.h2;

import io.eve.merkle.codec.MalformedInputException;
import io.eve.merkle.codec.Sink;
import io.eve.merkle.codec.Source;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

/**
 * The column types eve-h2 can hash canonically, with the one normalisation both the trigger path and the
 * scan path go through (docs/h2.md, "Canonical row encoding"). H2 hands triggers {@code java.time} values,
 * LOB handles and boxed numbers of the column's width; JDBC scans are read with the same target classes,
 * so a value reaches the encoder in one Java form whatever path it came by.
 *
 * <p>Every encoded value starts with a tag: 0 for SQL NULL, otherwise the kind's own tag, so a decoder can
 * tell a value of the wrong kind from a truncated one.
 */
enum ColumnKind {
    BOOLEAN(1),
    INTEGER(2),
    DECIMAL(3),
    DOUBLE(4),
    REAL(5),
    STRING(6),
    BYTES(7),
    DATE(8),
    TIME(9),
    TIMESTAMP(10),
    TIMESTAMP_TZ(11),
    UUID_KIND(12);

    static final int NULL_TAG = 0;

    /** Largest scale accepted from a delta: far beyond H2's own limit, small enough to be harmless. */
    private static final int MAX_SCALE = 100_000;

    private final int tag;

    ColumnKind(int tag) {
        this.tag = tag;
    }

    int tag() {
        return tag;
    }

    /**
     * The kind for an H2 {@code INFORMATION_SCHEMA.COLUMNS.DATA_TYPE}, or {@code null} when the type has
     * no canonical encoding here (arrays, intervals, JSON, geometry, TIME WITH TIME ZONE and the like).
     */
    static ColumnKind forSqlType(String dataType) {
        switch (dataType) {
            case "BOOLEAN":
                return BOOLEAN;
            case "TINYINT":
            case "SMALLINT":
            case "INTEGER":
            case "BIGINT":
                return INTEGER;
            case "NUMERIC":
            case "DECIMAL":
            case "DECFLOAT":
                return DECIMAL;
            case "DOUBLE PRECISION":
            case "FLOAT":
                return DOUBLE;
            case "REAL":
                return REAL;
            case "CHARACTER":
            case "CHARACTER VARYING":
            case "VARCHAR_IGNORECASE":
            case "CHARACTER LARGE OBJECT":
                return STRING;
            case "BINARY":
            case "BINARY VARYING":
            case "BINARY LARGE OBJECT":
                return BYTES;
            case "DATE":
                return DATE;
            case "TIME":
                return TIME;
            case "TIMESTAMP":
                return TIMESTAMP;
            case "TIMESTAMP WITH TIME ZONE":
                return TIMESTAMP_TZ;
            case "UUID":
                return UUID_KIND;
            default:
                return null;
        }
    }

    /**
     * The canonical Java value of {@code value}: {@code Long} for every integer width, a
     * {@code BigDecimal} without trailing zeros (1.0 and 1.00 are one value), a {@code Double} or
     * {@code Float} with every NaN the canonical NaN and -0.0 folded into 0.0 (H2 itself stores -0.0 as
     * 0.0), {@code String} and {@code byte[]} (LOBs read out), and {@code java.time} dates and times.
     */
    Object normalize(Object value) throws SQLException {
        if (value == null) {
            return null;
        }
        switch (this) {
            case BOOLEAN:
                return (Boolean) value;
            case INTEGER:
                return ((Number) value).longValue();
            case DECIMAL:
                return ((BigDecimal) value).stripTrailingZeros();
            case DOUBLE:
                double d = ((Number) value).doubleValue();
                return Double.isNaN(d) ? Double.NaN : d == 0.0 ? 0.0 : d;
            case REAL:
                float f = ((Number) value).floatValue();
                return Float.isNaN(f) ? Float.NaN : f == 0.0f ? 0.0f : f;
            case STRING:
                return value instanceof Clob clob ? clob.getSubString(1, lobLength(clob.length())) : (String) value;
            case BYTES:
                return value instanceof Blob blob ? blob.getBytes(1, lobLength(blob.length())) : (byte[]) value;
            case DATE:
                return value instanceof java.sql.Date date ? date.toLocalDate() : (LocalDate) value;
            case TIME:
                return value instanceof java.sql.Time time ? time.toLocalTime() : (LocalTime) value;
            case TIMESTAMP:
                return value instanceof java.sql.Timestamp ts ? ts.toLocalDateTime() : (LocalDateTime) value;
            case TIMESTAMP_TZ:
                return (OffsetDateTime) value;
            case UUID_KIND:
                return (UUID) value;
            default:
                throw new AssertionError(this);
        }
    }

    /** Reads column {@code index} of a scan in the form {@link #normalize} expects. */
    Object read(ResultSet rs, int index) throws SQLException {
        switch (this) {
            case STRING:
                return normalize(rs.getString(index));
            case BYTES:
                return normalize(rs.getBytes(index));
            case DATE:
                return normalize(rs.getObject(index, LocalDate.class));
            case TIME:
                return normalize(rs.getObject(index, LocalTime.class));
            case TIMESTAMP:
                return normalize(rs.getObject(index, LocalDateTime.class));
            case TIMESTAMP_TZ:
                return normalize(rs.getObject(index, OffsetDateTime.class));
            default:
                return normalize(rs.getObject(index));
        }
    }

    /**
     * Writes a normalised value for the wire: its {@link #encode hashed form}, and for a TIMESTAMP WITH
     * TIME ZONE also its offset, so a transfer reproduces the value exactly.
     */
    void encodeForWire(Object value, Sink sink) {
        encode(value, sink);
        if (this == TIMESTAMP_TZ && value != null) {
            sink.putInt(((OffsetDateTime) value).getOffset().getTotalSeconds());
        }
    }

    /**
     * Writes a normalised value as it is hashed, tag first. A TIMESTAMP WITH TIME ZONE is hashed as its
     * instant: the same moment written in two zones hashes alike.
     */
    void encode(Object value, Sink sink) {
        if (value == null) {
            sink.putByte(NULL_TAG);
            return;
        }
        sink.putByte(tag);
        switch (this) {
            case BOOLEAN -> sink.putBoolean((Boolean) value);
            case INTEGER -> sink.putLong((Long) value);
            case DECIMAL -> {
                BigDecimal decimal = (BigDecimal) value;
                sink.putInt(decimal.scale());
                sink.putByteArray(decimal.unscaledValue().toByteArray());
            }
            case DOUBLE -> sink.putLong(Double.doubleToLongBits((Double) value));
            case REAL -> sink.putInt(Float.floatToIntBits((Float) value));
            case STRING -> sink.putString((String) value);
            case BYTES -> sink.putByteArray((byte[]) value);
            case DATE -> sink.putLong(((LocalDate) value).toEpochDay());
            case TIME -> sink.putLong(((LocalTime) value).toNanoOfDay());
            case TIMESTAMP -> {
                LocalDateTime ts = (LocalDateTime) value;
                sink.putLong(ts.toLocalDate().toEpochDay());
                sink.putLong(ts.toLocalTime().toNanoOfDay());
            }
            case TIMESTAMP_TZ -> {
                OffsetDateTime ts = (OffsetDateTime) value;
                sink.putLong(ts.toEpochSecond());
                sink.putInt(ts.getNano());
            }
            case UUID_KIND -> {
                UUID uuid = (UUID) value;
                sink.putLong(uuid.getMostSignificantBits());
                sink.putLong(uuid.getLeastSignificantBits());
            }
            default -> throw new AssertionError(this);
        }
    }

    /** Reads what {@link #encodeForWire} wrote, validating the tag and every range before building the value. */
    Object decode(Source source) {
        int seen = source.getByte();
        if (seen == NULL_TAG) {
            return null;
        }
        if (seen != tag) {
            throw new MalformedInputException("a " + this + " value has tag " + tag + ", got " + seen);
        }
        try {
            return decodeValue(source);
        } catch (DateTimeException | ArithmeticException e) {
            throw new MalformedInputException("a " + this + " value is out of range: " + e.getMessage());
        }
    }

    private Object decodeValue(Source source) {
        switch (this) {
            case BOOLEAN:
                return source.getBoolean();
            case INTEGER:
                return source.getLong();
            case DECIMAL:
                int scale = source.getInt();
                if (Math.abs((long) scale) > MAX_SCALE) {
                    throw new MalformedInputException("decimal scale " + scale + " is beyond +-" + MAX_SCALE);
                }
                byte[] unscaled = source.getByteArray();
                if (unscaled.length == 0) {
                    throw new MalformedInputException("a decimal needs at least one byte of unscaled value");
                }
                BigDecimal decimal = new BigDecimal(new BigInteger(unscaled), scale);
                if (!decimal.equals(decimal.stripTrailingZeros())) {
                    throw new MalformedInputException("decimal " + decimal + " is not in canonical form");
                }
                return decimal;
            case DOUBLE:
                return normalizeNumber(Double.longBitsToDouble(source.getLong()));
            case REAL:
                return normalizeNumber(Float.intBitsToFloat(source.getInt()));
            case STRING:
                return source.getString();
            case BYTES:
                return source.getByteArray();
            case DATE:
                return LocalDate.ofEpochDay(source.getLong());
            case TIME:
                return LocalTime.ofNanoOfDay(source.getLong());
            case TIMESTAMP:
                LocalDate day = LocalDate.ofEpochDay(source.getLong());
                return LocalDateTime.of(day, LocalTime.ofNanoOfDay(source.getLong()));
            case TIMESTAMP_TZ:
                long seconds = source.getLong();
                int nanos = source.getInt();
                if (nanos < 0 || nanos > 999_999_999) {
                    throw new MalformedInputException("nanosecond field " + nanos + " is outside 0..999999999");
                }
                ZoneOffset offset = ZoneOffset.ofTotalSeconds(source.getInt());
                return OffsetDateTime.ofInstant(java.time.Instant.ofEpochSecond(seconds, nanos), offset);
            case UUID_KIND:
                return new UUID(source.getLong(), source.getLong());
            default:
                throw new AssertionError(this);
        }
    }

    private Object normalizeNumber(Object value) {
        try {
            return normalize(value);
        } catch (SQLException e) {
            throw new AssertionError("numbers are normalised without JDBC", e);
        }
    }

    private static int lobLength(long length) throws SQLException {
        if (length > Integer.MAX_VALUE - 16) {
            throw new SQLException("eve-h2 hashes LOBs in memory; a LOB of " + length + " is too large");
        }
        return (int) length;
    }
}
