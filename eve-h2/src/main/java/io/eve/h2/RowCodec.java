package io.eve.h2;

import io.eve.merkle.codec.HashSink;
import io.eve.merkle.codec.Sink;
import io.eve.merkle.codec.Source;
import java.sql.SQLException;
import java.util.List;

/**
 * The canonical row encoding, shared by the trigger path, the scan path and the wire (docs/h2.md):
 *
 * <pre>
 * row digest = SHA-256(0x52 || table key || every column's value in ordinal order)
 * bucket     = first 4 bytes of SHA-256(0x4B || table key || primary key values) mod bucket count
 * </pre>
 *
 * Values are encoded by {@link ColumnKind#encode}. Stateless; each thread hashes into its own sink.
 */
final class RowCodec {
    private static final int ROW_DOMAIN = 0x52;
    private static final int KEY_DOMAIN = 0x4B;

    private RowCodec() {}

    /** A copy of {@code row} with every value normalised by its column's kind. */
    static Object[] normalize(TableSchema table, Object[] row) throws SQLException {
        List<Column> columns = table.columns();
        if (row.length != columns.size()) {
            throw new SQLException(
                    "table " + table.key() + " has " + columns.size() + " columns, a row event has " + row.length);
        }
        Object[] out = new Object[row.length];
        for (int i = 0; i < row.length; i++) {
            out[i] = columns.get(i).kind().normalize(row[i]);
        }
        return out;
    }

    /** Writes the values of a normalised row, in ordinal order. */
    static void encode(TableSchema table, Object[] row, Sink sink) {
        List<Column> columns = table.columns();
        for (int i = 0; i < row.length; i++) {
            columns.get(i).kind().encode(row[i], sink);
        }
    }

    /** Writes the values of a normalised row for a delta (time zone offsets included). */
    static void encodeForWire(TableSchema table, Object[] row, Sink sink) {
        List<Column> columns = table.columns();
        for (int i = 0; i < row.length; i++) {
            columns.get(i).kind().encodeForWire(row[i], sink);
        }
    }

    /** Reads a row {@link #encodeForWire} wrote. */
    static Object[] decode(TableSchema table, Source source) {
        List<Column> columns = table.columns();
        Object[] row = new Object[columns.size()];
        for (int i = 0; i < row.length; i++) {
            row[i] = columns.get(i).kind().decode(source);
        }
        return row;
    }

    /** The row digest, written into {@code target} (32 bytes). */
    static void digest(TableSchema table, Object[] row, byte[] target) {
        HashSink sink = HashSink.forCurrentThread();
        sink.putByte(ROW_DOMAIN);
        sink.putString(table.key());
        encode(table, row, sink);
        sink.finishInto(target, 0);
    }

    /** The bucket of a normalised row; {@code buckets} is a power of two. */
    static int bucket(TableSchema table, Object[] row, int buckets) {
        HashSink sink = HashSink.forCurrentThread();
        sink.putByte(KEY_DOMAIN);
        sink.putString(table.key());
        for (int index : table.primaryKey()) {
            table.columns().get(index).kind().encode(row[index], sink);
        }
        byte[] hash = sink.finish().toByteArray();
        int prefix = ((hash[0] & 0xff) << 24) | ((hash[1] & 0xff) << 16) | ((hash[2] & 0xff) << 8) | (hash[3] & 0xff);
        return prefix & (buckets - 1);
    }

    /** The encoded primary key of a normalised row: equal bytes exactly for equal keys. */
    static java.nio.ByteBuffer keyBytes(TableSchema table, Object[] row) {
        io.eve.merkle.codec.BufferSink sink = new io.eve.merkle.codec.BufferSink(32);
        for (int index : table.primaryKey()) {
            table.columns().get(index).kind().encode(row[index], sink);
        }
        return java.nio.ByteBuffer.wrap(sink.toByteArray());
    }

    /** The primary key values of a normalised row, in key order. */
    static Object[] key(TableSchema table, Object[] row) {
        int[] primaryKey = table.primaryKey();
        Object[] key = new Object[primaryKey.length];
        for (int i = 0; i < key.length; i++) {
            key[i] = row[primaryKey[i]];
        }
        return key;
    }
}
