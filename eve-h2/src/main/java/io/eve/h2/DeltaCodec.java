package io.eve.h2;

import io.eve.merkle.StateDelta;
import io.eve.merkle.codec.BufferSink;
import io.eve.merkle.codec.MalformedInputException;
import io.eve.merkle.codec.Source;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;

/**
 * The eve-h2 delta format (docs/h2.md, "Transfer"): the full content of some buckets, so the receiver
 * replaces each of them.
 *
 * <pre>
 * delta  = magic "EH2D" || version 1 || base seq || target seq || full flag || table count || table*
 * table  = key || bucket count || column count || column tag* || shipped bucket count || bucket*
 * bucket = index (ascending) || row count || row* (each row as RowCodec encodes it)
 * </pre>
 *
 * With the full flag set every bucket of every table is replaced, shipped or not (an unshipped bucket is
 * empty). Decoding checks the header against the receiver's own schema, every count against the bytes
 * left, bucket indexes for range and order, and that every row belongs to the bucket it came in.
 */
final class DeltaCodec {
    static final int MAGIC = 0x45483244;
    static final byte VERSION = 1;

    /** The rows of one shipped bucket. */
    record BucketRows(int bucket, List<Object[]> rows) {}

    /** What a delta carries for one table. */
    record TableDelta(TableState table, List<BucketRows> buckets) {
        BitSet shipped() {
            BitSet out = new BitSet();
            buckets.forEach(b -> out.set(b.bucket()));
            return out;
        }

        int rowCount() {
            return buckets.stream().mapToInt(b -> b.rows().size()).sum();
        }
    }

    /** A decoded delta. */
    record Decoded(boolean full, List<TableDelta> tables) {}

    private DeltaCodec() {}

    /** Encodes {@code rows}: per table (every replicated table, in key order), the encoded rows per bucket. */
    static byte[] write(
            long base,
            long target,
            boolean full,
            List<TableState> tables,
            Map<TableState, Map<Integer, List<byte[]>>> rows) {
        BufferSink sink = new BufferSink(1024);
        sink.putInt(MAGIC);
        sink.putByte(VERSION);
        sink.putLong(base);
        sink.putLong(target);
        sink.putBoolean(full);
        sink.putInt(tables.size());
        for (TableState table : tables) {
            sink.putString(table.key());
            sink.putInt(table.buckets().count());
            List<Column> columns = table.schema().columns();
            sink.putInt(columns.size());
            columns.forEach(c -> sink.putByte(c.kind().tag()));
            Map<Integer, List<byte[]>> buckets = rows.getOrDefault(table, Map.of());
            sink.putInt(buckets.size());
            buckets.forEach((bucket, encodedRows) -> {
                sink.putInt(bucket);
                sink.putInt(encodedRows.size());
                encodedRows.forEach(row -> sink.putBytes(row, 0, row.length));
            });
        }
        return sink.toByteArray();
    }

    /** Decodes and validates {@code delta} against the receiver's tables (in key order). */
    static Decoded read(StateDelta delta, List<TableState> tables) {
        Source source = new Source(delta.payload());
        if (source.getInt() != MAGIC) {
            throw new MalformedInputException("not an eve-h2 delta (bad magic)");
        }
        byte version = source.getByte();
        if (version != VERSION) {
            throw new MalformedInputException(
                    "eve-h2 delta version " + version + " is not supported (expected " + VERSION + ")");
        }
        long base = source.getLong();
        long target = source.getLong();
        if (base != delta.baseSeq() || target != delta.targetSeq()) {
            throw new MalformedInputException("the payload says " + base + " -> " + target + ", the delta says "
                    + delta.baseSeq() + " -> " + delta.targetSeq());
        }
        boolean full = source.getBoolean();
        int count = source.getCount(4, "table");
        if (count != tables.size()) {
            throw new MalformedInputException("the delta has " + count + " tables, this database " + tables.size());
        }
        List<TableDelta> out = new ArrayList<>();
        for (TableState table : tables) {
            out.add(readTable(source, table));
        }
        if (source.hasRemaining()) {
            throw new MalformedInputException(source.remaining() + " bytes follow the last table");
        }
        return new Decoded(full, out);
    }

    private static TableDelta readTable(Source source, TableState table) {
        String key = source.getString();
        if (!key.equals(table.key())) {
            throw new MalformedInputException("the delta has table " + key + " where this database has " + table.key());
        }
        int buckets = source.getInt();
        if (buckets != table.buckets().count()) {
            throw new MalformedInputException("table " + key + " has " + buckets + " buckets in the delta, "
                    + table.buckets().count() + " here");
        }
        List<Column> columns = table.schema().columns();
        int columnCount = source.getCount(1, "column");
        if (columnCount != columns.size()) {
            throw new MalformedInputException(
                    "table " + key + " has " + columnCount + " columns in the delta, " + columns.size() + " here");
        }
        for (Column column : columns) {
            int tag = source.getByte();
            if (tag != column.kind().tag()) {
                throw new MalformedInputException("column " + key + "." + column.name() + " has tag " + tag
                        + " in the delta, " + column.kind().tag() + " here");
            }
        }
        int shipped = source.getCount(8, "bucket");
        List<BucketRows> out = new ArrayList<>();
        int previous = -1;
        for (int i = 0; i < shipped; i++) {
            int bucket = source.getInt();
            if (bucket <= previous || bucket >= buckets) {
                throw new MalformedInputException("bucket " + bucket + " of table " + key + " is out of order or"
                        + " outside 0.." + (buckets - 1));
            }
            previous = bucket;
            out.add(new BucketRows(bucket, readRows(source, table, bucket)));
        }
        return new TableDelta(table, out);
    }

    private static List<Object[]> readRows(Source source, TableState table, int bucket) {
        int rows = source.getCount(table.schema().columns().size(), "row");
        List<Object[]> out = new ArrayList<>(rows);
        for (int r = 0; r < rows; r++) {
            Object[] row = RowCodec.decode(table.schema(), source);
            int actual = RowCodec.bucket(table.schema(), row, table.buckets().count());
            if (actual != bucket) {
                throw new MalformedInputException(
                        "a row shipped in bucket " + bucket + " of " + table.key() + " belongs to bucket " + actual);
            }
            for (int index : table.schema().primaryKey()) {
                if (row[index] == null) {
                    throw new MalformedInputException("a row of " + table.key() + " has a NULL primary key column");
                }
            }
            out.add(row);
        }
        return out;
    }
}
