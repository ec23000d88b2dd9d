package io.eve.h2;

import io.eve.merkle.ApplyResult;
import io.eve.merkle.Digest;
import io.eve.merkle.StateDelta;
import io.eve.merkle.codec.BufferSink;
import io.eve.merkle.codec.MalformedInputException;
import java.nio.ByteBuffer;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Builds and installs deltas for an {@link H2State}: the sending side scans the tables for the rows of the
 * shipped buckets; the receiving side, in one transaction with the row triggers live, deletes its rows of
 * those buckets, inserts the shipped ones, and commits only if the resulting root is the expected one.
 * Called by the execution stage's thread while no request runs.
 */
final class Transfer {
    private final H2State state;

    Transfer(H2State state) {
        this.state = state;
    }

    /**
     * The delta from {@code sinceSeq} to {@code targetSeq} carrying the given buckets' rows.
     *
     * @param later the row changes committed after {@code targetSeq}, oldest first: undone on the rows read,
     *     in memory, so the buckets ship as they were at {@code targetSeq}
     */
    StateDelta delta(long sinceSeq, long targetSeq, boolean full, Map<String, BitSet> buckets, List<RowChange> later) {
        Map<TableState, Map<Integer, List<byte[]>>> rows = new HashMap<>();
        try {
            for (TableState table : state.tables()) {
                BitSet shipped = buckets.getOrDefault(table.key(), new BitSet());
                if (!shipped.isEmpty()) {
                    rows.put(table, rowsOf(table, shipped, later));
                }
            }
            state.admin().connection().commit();
        } catch (SQLException e) {
            throw new io.eve.merkle.StateException("cannot read rows for a delta: " + e.getMessage(), e);
        }
        return new StateDelta(sinceSeq, targetSeq, DeltaCodec.write(sinceSeq, targetSeq, full, state.tables(), rows));
    }

    /** The encoded rows of the shipped buckets, by bucket, each bucket's rows in encoded-byte order. */
    private Map<Integer, List<byte[]>> rowsOf(TableState table, BitSet shipped, List<RowChange> later)
            throws SQLException {
        TableSchema schema = table.schema();
        int count = table.buckets().count();
        if (later.isEmpty()) {
            // The last sealed version: encode the rows as they are read.
            Map<Integer, List<byte[]>> out = new TreeMap<>();
            shipped.stream().forEach(b -> out.put(b, new ArrayList<>()));
            Scans.forEachRow(state.admin().connection(), schema, row -> {
                int bucket = RowCodec.bucket(schema, row, count);
                if (shipped.get(bucket)) {
                    out.get(bucket).add(encode(schema, row));
                }
            });
            out.values().forEach(list -> list.sort(Arrays::compareUnsigned));
            return out;
        }
        Map<Integer, Map<ByteBuffer, Object[]>> byKey = new TreeMap<>();
        shipped.stream().forEach(b -> byKey.put(b, new HashMap<>()));
        Scans.forEachRow(state.admin().connection(), schema, row -> {
            int bucket = RowCodec.bucket(schema, row, count);
            if (shipped.get(bucket)) {
                byKey.get(bucket).put(RowCodec.keyBytes(schema, row), row);
            }
        });
        for (int i = later.size() - 1; i >= 0; i--) {
            RowChange change = later.get(i);
            if (change.table() == table) {
                if (change.after() != null) {
                    rowsOfBucket(byKey, schema, change.after(), count)
                            .remove(RowCodec.keyBytes(schema, change.after()));
                }
                if (change.before() != null) {
                    rowsOfBucket(byKey, schema, change.before(), count)
                            .put(RowCodec.keyBytes(schema, change.before()), change.before());
                }
            }
        }
        Map<Integer, List<byte[]>> out = new TreeMap<>();
        byKey.forEach((bucket, rows) -> {
            List<byte[]> encoded = new ArrayList<>(rows.size());
            for (Object[] row : rows.values()) {
                encoded.add(encode(schema, row));
            }
            encoded.sort(Arrays::compareUnsigned);
            out.put(bucket, encoded);
        });
        return out;
    }

    private static byte[] encode(TableSchema schema, Object[] row) {
        BufferSink sink = new BufferSink(128);
        RowCodec.encodeForWire(schema, row, sink);
        return sink.toByteArray();
    }

    private static Map<ByteBuffer, Object[]> rowsOfBucket(
            Map<Integer, Map<ByteBuffer, Object[]>> byKey, TableSchema schema, Object[] row, int count) {
        Map<ByteBuffer, Object[]> rows = byKey.get(RowCodec.bucket(schema, row, count));
        if (rows == null) {
            // Every bucket a later change touched was modified after the delta's base and ships.
            throw new IllegalStateException("a row change after the delta's version touches a bucket not shipped");
        }
        return rows;
    }

    ApplyResult apply(StateDelta delta, Digest expectedRoot) {
        DeltaCodec.Decoded decoded;
        try {
            decoded = DeltaCodec.read(delta, state.tables());
        } catch (MalformedInputException e) {
            return ApplyResult.rejected(null, "malformed delta: " + e.getMessage());
        }
        Session admin = state.admin();
        List<ChangeBuffer.Entry> published = List.of();
        state.setReferentialIntegrity(false);
        admin.begin(true, state.config().setupMillis(), () -> new SplittableRandom(0));
        try (RowWriter writer = new RowWriter(admin.connection())) {
            for (DeltaCodec.TableDelta table : decoded.tables()) {
                replace(writer, table, decoded.full());
            }
            admin.buffer().requireComplete();
            published = admin.buffer().drainEntries();
            state.publishEntries(published, 1);
            Map<TableState, BitSet> changed = new HashMap<>();
            state.tables().forEach(t -> changed.put(t, t.buckets().refresh()));
            Digest root = state.computeRoot();
            if (!root.equals(expectedRoot)) {
                retract(admin, published, new IllegalStateException("root mismatch"));
                return ApplyResult.rejected(root, "the delta produces root " + root + ", expected " + expectedRoot);
            }
            admin.connection().commit();
            for (DeltaCodec.TableDelta table : decoded.tables()) {
                BitSet modified = changed.get(table.table());
                if (decoded.full()) {
                    modified.set(0, table.table().buckets().count());
                }
                modified.or(table.shipped());
                table.table().buckets().markModified(modified, delta.targetSeq());
            }
            state.installVersion(
                    delta.targetSeq(), root, List.copyOf(admin.buffer().changes()));
            return ApplyResult.applied(root);
        } catch (SQLException | RuntimeException e) {
            retract(admin, published, e);
            return ApplyResult.rejected(null, "inconsistent delta: " + e);
        } finally {
            admin.end();
            state.setReferentialIntegrity(true);
        }
    }

    /** Undoes a failed install: the H2 transaction rolls back and the published digest changes are retracted. */
    private void retract(Session admin, List<ChangeBuffer.Entry> published, Throwable cause) {
        admin.rollback(cause);
        state.publishEntries(published, -1);
        state.tables().forEach(t -> t.buckets().refresh());
    }

    private static void replace(RowWriter writer, DeltaCodec.TableDelta delta, boolean full) throws SQLException {
        TableState table = delta.table();
        BitSet replaced = delta.shipped();
        if (full) {
            replaced.set(0, table.buckets().count());
        }
        if (replaced.isEmpty()) {
            return;
        }
        List<Object[]> doomed = new ArrayList<>();
        Scans.forEachRow(writer.connection(), table.schema(), row -> {
            if (replaced.get(
                    RowCodec.bucket(table.schema(), row, table.buckets().count()))) {
                doomed.add(row);
            }
        });
        for (Object[] row : doomed) {
            writer.delete(table.schema(), row);
        }
        for (DeltaCodec.BucketRows bucket : delta.buckets()) {
            for (Object[] row : bucket.rows()) {
                writer.insert(table.schema(), row);
            }
        }
    }
}
