package io.eve.h2;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Checks the SQL a request sends before H2 sees it, and hands the request a connection that refuses what
 * would break replication (docs/h2.md, "What is rejected"):
 *
 * <ul>
 *   <li>DDL and its kin (CREATE, ALTER, DROP, TRUNCATE, GRANT, SET, SCRIPT, ...): they commit the open
 *       transaction, change the row shape, or (TRUNCATE) delete rows without firing row triggers;
 *   <li>sequences ({@code NEXT VALUE FOR}, {@code NEXTVAL}, ...): their values are not rolled back;
 *   <li>functions whose results differ between replicas and that H2 does not let us override
 *       ({@code SESSION_ID}, {@code MEMORY_FREE}, file access, ...);
 *   <li>{@code commit}, {@code rollback()}, {@code setAutoCommit} and {@code close} on the connection: the
 *       framework owns the request's transaction.
 * </ul>
 *
 * <p>The check is lexical: string literals, quoted identifiers and comments are skipped, the rest is
 * split into words. It is a guard rail against mistakes, not a sandbox. Stateless and thread-safe.
 */
final class SqlGuard {
    private static final Set<String> FORBIDDEN_FIRST = Set.of(
            "CREATE",
            "ALTER",
            "DROP",
            "TRUNCATE",
            "GRANT",
            "REVOKE",
            "SET",
            "RUNSCRIPT",
            "SCRIPT",
            "BACKUP",
            "SHUTDOWN",
            "COMMIT",
            "CHECKPOINT",
            "COMMENT",
            "EXECUTE",
            "ANALYZE",
            "PREPARE",
            "END");
    private static final Set<String> FORBIDDEN_WORDS = Set.of(
            "NEXTVAL",
            "CURRVAL",
            "LASTVAL",
            "SETVAL",
            "SCOPE_IDENTITY",
            "SESSION_ID",
            "TRANSACTION_ID",
            "MEMORY_FREE",
            "MEMORY_USED",
            "DISK_SPACE_USED",
            "DATABASE_PATH",
            "CSVREAD",
            "CSVWRITE",
            "FILE_READ",
            "FILE_WRITE",
            "LINK_SCHEMA",
            "SLEEP");
    private static final Set<String> CONNECTION_OWNED = Set.of("commit", "setAutoCommit", "close", "abort");

    private SqlGuard() {}

    /** A connection that checks every SQL string and refuses transaction control. */
    static Connection guard(Connection connection, Set<String> extraForbidden) {
        Connection[] self = new Connection[1];
        self[0] = proxy(
                Connection.class,
                connection,
                (method, args) -> {
                    String name = method.getName();
                    if (CONNECTION_OWNED.contains(name)
                            || (name.equals("rollback") && method.getParameterCount() == 0)) {
                        throw new ForbiddenStatementException(
                                "Connection." + name + " is not allowed in an eve-h2 request:"
                                        + " the framework commits the request's transaction when it returns and rolls it back"
                                        + " when it throws");
                    }
                    checkSqlArgument(args, extraForbidden);
                },
                (method, call) -> {
                    Object result = call.invoke();
                    if (result instanceof CallableStatement statement) {
                        return guardStatement(CallableStatement.class, statement, self[0], extraForbidden);
                    }
                    if (result instanceof PreparedStatement statement) {
                        return guardStatement(PreparedStatement.class, statement, self[0], extraForbidden);
                    }
                    if (result instanceof Statement statement) {
                        return guardStatement(Statement.class, statement, self[0], extraForbidden);
                    }
                    return result;
                });
        return self[0];
    }

    /**
     * A statement that checks its SQL and brackets every execution: if it fails, what its row triggers
     * reported is cut from the transaction's buffer, because H2 has undone it. A failed batch marks the
     * transaction failed instead, since H2 keeps the elements that succeeded and we cannot tell which.
     */
    private static <T extends Statement> T guardStatement(
            Class<T> type, T statement, Connection owner, Set<String> extraForbidden) {
        return proxy(type, statement, (method, args) -> checkSqlArgument(args, extraForbidden), (method, call) -> {
            String name = method.getName();
            if (name.equals("getConnection")) {
                return owner;
            }
            if (!name.startsWith("execute")) {
                return call.invoke();
            }
            Session session = Session.current();
            ChangeBuffer buffer = session == null ? null : session.buffer();
            long mark = buffer == null ? 0 : buffer.mark();
            try {
                return call.invoke();
            } catch (SQLException e) {
                if (buffer != null && name.contains("Batch")) {
                    buffer.fail(e);
                } else if (buffer != null) {
                    buffer.truncate(mark);
                }
                throw e;
            }
        });
    }

    private static void checkSqlArgument(Object[] args, Set<String> extraForbidden) throws SQLException {
        if (args != null && args.length > 0 && args[0] instanceof String sql) {
            check(sql, extraForbidden);
        }
    }

    /** Throws if {@code sql} (one or more statements) contains something eve-h2 cannot replicate. */
    static void check(String sql, Set<String> extraForbidden) throws ForbiddenStatementException {
        for (List<String> statement : statements(sql)) {
            if (statement.isEmpty()) {
                continue;
            }
            String first = statement.get(0);
            boolean bareRollback = first.equals("ROLLBACK")
                    && (statement.size() < 2 || !statement.get(1).equals("TO"));
            if (FORBIDDEN_FIRST.contains(first) || bareRollback) {
                throw rejected(
                        sql,
                        first + " is not allowed in an eve-h2 request" + target(statement)
                                + ": the schema is fixed at setup, and DDL, TRUNCATE, SET and transaction control"
                                + " bypass the row triggers or commit the request's transaction");
            }
            for (int i = 0; i < statement.size(); i++) {
                String word = statement.get(i);
                if (FORBIDDEN_WORDS.contains(word) || extraForbidden.contains(word)) {
                    throw rejected(
                            sql,
                            word + " is not deterministic or not transactional, so replicas would"
                                    + " diverge; pass the value as a parameter (Sql.now, ExecutionContext.random)");
                }
                if ((word.equals("NEXT") || word.equals("CURRENT"))
                        && i + 2 < statement.size()
                        && statement.get(i + 1).equals("VALUE")
                        && statement.get(i + 2).equals("FOR")) {
                    throw rejected(sql, "sequences are not allowed: their values are not rolled back");
                }
            }
        }
    }

    private static String target(List<String> statement) {
        int i = 1;
        while (i < statement.size()
                && (statement.get(i).equals("TABLE") || statement.get(i).equals("IF"))) {
            i++;
        }
        return i < statement.size() ? " (" + statement.get(0) + " ... " + statement.get(i) + ")" : "";
    }

    private static ForbiddenStatementException rejected(String sql, String reason) {
        String shown = sql.length() > 200 ? sql.substring(0, 200) + "..." : sql;
        return new ForbiddenStatementException(reason + "; statement: " + shown);
    }

    /** The upper-cased words of each statement; literals, quoted identifiers and comments dropped. */
    static List<List<String>> statements(String sql) {
        List<List<String>> out = new ArrayList<>();
        List<String> current = new ArrayList<>();
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"' || c == '`') {
                i = skipQuoted(sql, i, c);
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                int end = sql.indexOf('\n', i);
                i = end < 0 ? n : end + 1;
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (c == '$' && i + 1 < n && sql.charAt(i + 1) == '$') {
                int end = sql.indexOf("$$", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (c == ';') {
                out.add(current);
                current = new ArrayList<>();
                i++;
            } else if (Character.isLetter(c) || c == '_') {
                int start = i;
                while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_')) {
                    i++;
                }
                current.add(sql.substring(start, i).toUpperCase(Locale.ROOT));
            } else {
                i++;
            }
        }
        out.add(current);
        return out;
    }

    private static int skipQuoted(String sql, int start, char quote) {
        int i = start + 1;
        while (i < sql.length()) {
            if (sql.charAt(i) == quote) {
                if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
                    i += 2;
                    continue;
                }
                return i + 1;
            }
            i++;
        }
        return i;
    }

    private interface Check {
        /** Throws to refuse the call. */
        void before(Method method, Object[] args) throws SQLException;
    }

    private interface Call {
        Object invoke() throws Throwable;
    }

    private interface Around {
        Object apply(Method method, Call call) throws Throwable;
    }

    private static <T> T proxy(Class<T> type, T target, Check check, Around around) {
        InvocationHandler handler = (self, method, args) -> {
            if (method.getDeclaringClass() == Object.class) {
                return method.getName().equals("equals")
                        ? Boolean.valueOf(self == args[0])
                        : method.invoke(target, args);
            }
            check.before(method, args);
            return around.apply(method, () -> {
                try {
                    return method.invoke(target, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            });
        };
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
    }
}
