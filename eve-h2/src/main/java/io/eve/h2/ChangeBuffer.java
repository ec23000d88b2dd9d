package io.eve.h2;

import io.eve.merkle.Digest;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * What one open transaction did, as its row triggers reported it: digest additions and removals per
 * bucket, and the row changes for the undo log. Nothing here reaches the state until the transaction
 * commits ({@link H2State} publishes it under its commit lock); a rolled-back transaction's buffer is
 * dropped. A statement that fails is cut out of the buffer ({@link #truncate}) by the SQL guard, since H2
 * undoes it; the inverse events H2 reports on ROLLBACK keep the buffer exact for what the guard cannot
 * see: savepoint rollbacks and H2's internal retry of a statement after a concurrent update.
 *
 * <p>Confined to the thread running the transaction (triggers fire on that thread).
 */
final class ChangeBuffer {
    /** One bucket change: {@code sign} 1 adds the row digest, -1 removes it. */
    record Entry(TableState table, int bucket, byte[] rowDigest, int sign) {}

    private final boolean recordUndo;
    private final List<Entry> entries = new ArrayList<>();
    private final List<RowChange> changes = new ArrayList<>();
    private Exception failure;

    ChangeBuffer(boolean recordUndo) {
        this.recordUndo = recordUndo;
    }

    /** A row trigger fired: hashes the row images here, on the executor thread, in parallel with the rest. */
    void onRow(TableState table, Object[] oldRow, Object[] newRow) throws SQLException {
        TableSchema schema = table.schema();
        Object[] before = oldRow == null ? null : RowCodec.normalize(schema, oldRow);
        Object[] after = newRow == null ? null : RowCodec.normalize(schema, newRow);
        if (before != null) {
            entries.add(entry(table, before, -1));
        }
        if (after != null) {
            entries.add(entry(table, after, 1));
        }
        if (recordUndo) {
            changes.add(new RowChange(table, before, after));
        }
    }

    private static Entry entry(TableState table, Object[] row, int sign) {
        byte[] digest = new byte[Digest.LENGTH];
        RowCodec.digest(table.schema(), row, digest);
        return new Entry(
                table, RowCodec.bucket(table.schema(), row, table.buckets().count()), digest, sign);
    }

    /** A row event could not be recorded: the transaction must not commit. */
    void fail(Exception e) {
        if (failure == null) {
            failure = e;
        }
    }

    /** Throws if a row event was lost, so the transaction rolls back instead of committing unhashed rows. */
    void requireComplete() throws SQLException {
        if (failure != null) {
            throw new SQLException("eve-h2 could not record a row change: " + failure.getMessage(), failure);
        }
    }

    /** The position to return to if the statement about to run fails. */
    long mark() {
        return ((long) entries.size() << 32) | changes.size();
    }

    /**
     * Forgets everything reported since {@code mark}: the statement failed and H2 undid it. Its events
     * cannot be trusted to cancel out: when a row fails an index or constraint check after it was
     * written, H2 reports the undo of that row (on ROLLBACK) without ever having reported the write.
     */
    void truncate(long mark) {
        entries.subList((int) (mark >>> 32), entries.size()).clear();
        changes.subList((int) mark, changes.size()).clear();
    }

    /** Takes the bucket changes gathered so far; later events start a fresh list. */
    List<Entry> drainEntries() {
        List<Entry> out = List.copyOf(entries);
        entries.clear();
        return out;
    }

    List<RowChange> changes() {
        return changes;
    }

    boolean isEmpty() {
        return entries.isEmpty() && changes.isEmpty();
    }
}
