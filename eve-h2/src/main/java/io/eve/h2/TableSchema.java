package io.eve.h2;

import io.eve.merkle.StateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The shape of one replicated table, read from H2's {@code INFORMATION_SCHEMA} at setup and validated:
 * a primary key, no identity column, only column types with a canonical encoding. Immutable.
 *
 * @param key {@code SCHEMA.TABLE}, the name digests and deltas use
 * @param columns every column in ordinal order (H2's hidden {@code _ROWID_} is not a column)
 * @param primaryKey the indexes in {@code columns} of the primary key columns, in key order
 */
record TableSchema(String schema, String table, String key, List<Column> columns, int[] primaryKey) {

    static List<TableSchema> loadAll(Connection connection) throws SQLException {
        List<TableSchema> tables = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement("SELECT TABLE_SCHEMA, TABLE_NAME FROM"
                        + " INFORMATION_SCHEMA.TABLES WHERE TABLE_TYPE = 'BASE TABLE' AND TABLE_SCHEMA <>"
                        + " 'INFORMATION_SCHEMA' ORDER BY TABLE_SCHEMA, TABLE_NAME");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                tables.add(load(connection, rs.getString(1), rs.getString(2)));
            }
        }
        rejectSequences(connection);
        return tables;
    }

    private static TableSchema load(Connection connection, String schema, String table) throws SQLException {
        String key = schema + "." + table;
        List<Column> columns = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement("SELECT COLUMN_NAME, DATA_TYPE, IS_IDENTITY,"
                + " IS_GENERATED FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?"
                + " ORDER BY ORDINAL_POSITION")) {
            ps.setString(1, schema);
            ps.setString(2, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    columns.add(column(key, rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)));
                }
            }
        }
        List<String> names = columns.stream().map(Column::name).collect(Collectors.toList());
        int[] primaryKey = primaryKey(connection, schema, table).stream()
                .mapToInt(names::indexOf)
                .toArray();
        if (primaryKey.length == 0) {
            throw new StateException("table " + key + " has no primary key; eve-h2 buckets, undoes and transfers"
                    + " rows by primary key, so every replicated table needs one");
        }
        return new TableSchema(schema, table, key, List.copyOf(columns), primaryKey);
    }

    private static Column column(String table, String name, String dataType, String identity, String generated) {
        if ("YES".equals(identity)) {
            throw new StateException("column " + table + "." + name + " is an identity column; identity values are"
                    + " not rolled back with their transaction, so replicated tables need explicit keys");
        }
        ColumnKind kind = ColumnKind.forSqlType(dataType);
        if (kind == null) {
            throw new StateException("column " + table + "." + name + " has type " + dataType + ", which eve-h2"
                    + " cannot hash canonically; supported: BOOLEAN, TINYINT..BIGINT, NUMERIC/DECIMAL/DECFLOAT,"
                    + " REAL, DOUBLE, CHAR/VARCHAR/CLOB, BINARY/VARBINARY/BLOB, DATE, TIME, TIMESTAMP,"
                    + " TIMESTAMP WITH TIME ZONE, UUID");
        }
        return new Column(name, kind, "ALWAYS".equals(generated));
    }

    private static List<String> primaryKey(Connection connection, String schema, String table) throws SQLException {
        List<String> names = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement("SELECT k.COLUMN_NAME FROM"
                + " INFORMATION_SCHEMA.TABLE_CONSTRAINTS c JOIN INFORMATION_SCHEMA.KEY_COLUMN_USAGE k ON"
                + " c.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND c.CONSTRAINT_NAME = k.CONSTRAINT_NAME"
                + " WHERE c.TABLE_SCHEMA = ? AND c.TABLE_NAME = ? AND c.CONSTRAINT_TYPE = 'PRIMARY KEY'"
                + " ORDER BY k.ORDINAL_POSITION")) {
            ps.setString(1, schema);
            ps.setString(2, table);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    names.add(rs.getString(1));
                }
            }
        }
        return names;
    }

    private static void rejectSequences(Connection connection) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT SEQUENCE_SCHEMA, SEQUENCE_NAME FROM"
                        + " INFORMATION_SCHEMA.SEQUENCES WHERE SEQUENCE_SCHEMA <> 'INFORMATION_SCHEMA'");
                ResultSet rs = ps.executeQuery()) {
            if (rs.next()) {
                throw new StateException("sequence " + rs.getString(1) + "." + rs.getString(2) + " exists;"
                        + " sequence values are not rolled back with their transaction, so eve-h2 forbids"
                        + " sequences (derive keys from the request instead)");
            }
        }
    }

    String quotedName() {
        return quote(schema) + "." + quote(table);
    }

    /** {@code SELECT} of every column in ordinal order; never {@code _ROWID_}. */
    String selectSql() {
        return "SELECT " + join(IntStream.range(0, columns.size()), "") + " FROM " + quotedName();
    }

    String insertSql() {
        int[] written = writtenColumns();
        return "INSERT INTO " + quotedName() + " (" + join(IntStream.of(written), "") + ") VALUES ("
                + IntStream.of(written).mapToObj(i -> "?").collect(Collectors.joining(", ")) + ")";
    }

    String deleteSql() {
        return "DELETE FROM " + quotedName() + " WHERE " + keyCondition();
    }

    String updateSql() {
        return "UPDATE " + quotedName() + " SET " + join(IntStream.of(writtenColumns()), " = ?") + " WHERE "
                + keyCondition();
    }

    /** The columns an INSERT or UPDATE sets: all but the generated ones. */
    int[] writtenColumns() {
        return IntStream.range(0, columns.size())
                .filter(i -> !columns.get(i).generated())
                .toArray();
    }

    private String keyCondition() {
        return IntStream.of(primaryKey)
                .mapToObj(i -> quote(columns.get(i).name()) + " = ?")
                .collect(Collectors.joining(" AND "));
    }

    private String join(IntStream indexes, String suffix) {
        return indexes.mapToObj(i -> quote(columns.get(i).name()) + suffix).collect(Collectors.joining(", "));
    }

    static String quote(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }
}
