package io.eve.tpcw.interaction;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Prepared-statement shorthands for the interactions. Stateless. */
final class Jdbc {
    private Jdbc() {}

    /** Handles one row of a result. */
    @FunctionalInterface
    interface RowHandler {
        void row(ResultSet row) throws SQLException;
    }

    static int update(Connection c, String sql, Object... parameters) throws SQLException {
        try (PreparedStatement statement = c.prepareStatement(sql)) {
            bind(statement, parameters);
            return statement.executeUpdate();
        }
    }

    /** Runs a query and hands every row to {@code handler}; returns the row count. */
    static int query(Connection c, String sql, RowHandler handler, Object... parameters) throws SQLException {
        try (PreparedStatement statement = c.prepareStatement(sql)) {
            bind(statement, parameters);
            int rows = 0;
            try (ResultSet result = statement.executeQuery()) {
                while (result.next()) {
                    handler.row(result);
                    rows++;
                }
            }
            return rows;
        }
    }

    /** The first column of the first row as a long, or {@code absent} if there is no row. */
    static long queryLong(Connection c, String sql, long absent, Object... parameters) throws SQLException {
        long[] value = {absent};
        boolean[] seen = {false};
        query(
                c,
                sql,
                row -> {
                    if (!seen[0]) {
                        value[0] = row.getLong(1);
                        seen[0] = true;
                    }
                },
                parameters);
        return value[0];
    }

    private static void bind(PreparedStatement statement, Object[] parameters) throws SQLException {
        for (int i = 0; i < parameters.length; i++) {
            statement.setObject(i + 1, parameters[i]);
        }
    }
}
