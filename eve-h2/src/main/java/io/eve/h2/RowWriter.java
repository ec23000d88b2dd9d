package io.eve.h2;

import io.eve.merkle.StateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * Writes normalised rows by primary key, for undo and for installing a delta. Prepared statements are
 * cached per table for the life of the writer. Used by one thread, inside one open transaction.
 */
final class RowWriter implements AutoCloseable {
    private final Connection connection;
    private final Map<String, PreparedStatement> statements = new HashMap<>();

    Connection connection() {
        return connection;
    }

    RowWriter(Connection connection) {
        this.connection = connection;
    }

    /** Undoes one committed change: writes its before-image back. */
    void undo(RowChange change) throws SQLException {
        TableSchema table = change.table().schema();
        if (change.before() == null) {
            delete(table, change.after());
        } else if (change.after() == null) {
            insert(table, change.before());
        } else {
            update(table, change.after(), change.before());
        }
    }

    void insert(TableSchema table, Object[] row) throws SQLException {
        PreparedStatement ps = statement(table, "I", table.insertSql());
        int[] written = table.writtenColumns();
        for (int i = 0; i < written.length; i++) {
            ps.setObject(i + 1, row[written[i]]);
        }
        ps.executeUpdate();
    }

    void delete(TableSchema table, Object[] row) throws SQLException {
        PreparedStatement ps = statement(table, "D", table.deleteSql());
        bindKey(table, ps, row, 1);
        expectOne(table, ps.executeUpdate(), "delete");
    }

    /** Finds the row by the key of {@code current} and gives it the values of {@code target}. */
    void update(TableSchema table, Object[] current, Object[] target) throws SQLException {
        PreparedStatement ps = statement(table, "U", table.updateSql());
        int[] written = table.writtenColumns();
        for (int i = 0; i < written.length; i++) {
            ps.setObject(i + 1, target[written[i]]);
        }
        bindKey(table, ps, current, written.length + 1);
        expectOne(table, ps.executeUpdate(), "update");
    }

    private static void bindKey(TableSchema table, PreparedStatement ps, Object[] row, int first) throws SQLException {
        Object[] key = RowCodec.key(table, row);
        for (int i = 0; i < key.length; i++) {
            ps.setObject(first + i, key[i]);
        }
    }

    private static void expectOne(TableSchema table, int count, String what) {
        if (count != 1) {
            throw new StateException("eve-h2 " + what + " on " + table.key() + " matched " + count
                    + " rows by primary key, expected 1;" + " the table was changed outside eve-h2");
        }
    }

    private PreparedStatement statement(TableSchema table, String kind, String sql) throws SQLException {
        String key = kind + table.key();
        PreparedStatement ps = statements.get(key);
        if (ps == null) {
            ps = connection.prepareStatement(sql);
            statements.put(key, ps);
        }
        return ps;
    }

    @Override
    public void close() throws SQLException {
        for (PreparedStatement ps : statements.values()) {
            ps.close();
        }
    }
}
