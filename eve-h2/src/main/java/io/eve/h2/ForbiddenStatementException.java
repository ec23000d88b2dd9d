package io.eve.h2;

import java.sql.SQLNonTransientException;

/**
 * A request tried something eve-h2 cannot replicate: DDL, TRUNCATE, a sequence, a non-deterministic
 * function, or taking over the transaction the framework owns. The message names the statement and the
 * reason. Thrown from the JDBC call, so the request fails and its transaction is rolled back.
 */
public final class ForbiddenStatementException extends SQLNonTransientException {
    private static final long serialVersionUID = 1L;

    public ForbiddenStatementException(String message) {
        super(message);
    }
}
