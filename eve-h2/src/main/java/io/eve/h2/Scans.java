package io.eve.h2;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/** Full-table reads that produce rows in the trigger path's normalised form. */
final class Scans {
    /** Receives one normalised row. */
    interface RowVisitor {
        void visit(Object[] row) throws SQLException;
    }

    private Scans() {}

    /** Reads every row of {@code table} (every column in ordinal order, never {@code _ROWID_}). */
    static void forEachRow(Connection connection, TableSchema table, RowVisitor visitor) throws SQLException {
        List<Column> columns = table.columns();
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery(table.selectSql())) {
            while (rs.next()) {
                Object[] row = new Object[columns.size()];
                for (int i = 0; i < row.length; i++) {
                    row[i] = columns.get(i).kind().read(rs, i + 1);
                }
                visitor.visit(row);
            }
        }
    }
}
