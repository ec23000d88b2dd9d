package io.eve.h2;

import io.eve.ExecutionContext;
import java.sql.Connection;

/**
 * The code of one request against the database. It runs inside one transaction on the calling executor
 * thread's connection: the framework commits when it returns and rolls back when it throws. It must not
 * commit, roll back or close the connection itself, and must take time and randomness from the context
 * ({@link Sql}), never from the wall clock.
 */
@FunctionalInterface
public interface SqlWork {
    /** Runs the request and returns its reply payload. */
    byte[] run(Connection connection, ExecutionContext context) throws Exception;
}
