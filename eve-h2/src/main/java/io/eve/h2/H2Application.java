package io.eve.h2;

import io.eve.Application;
import io.eve.ExecutionContext;
import java.sql.Connection;
import java.util.Objects;

/**
 * An {@link Application} whose state is an {@link H2State}: each request runs as one transaction on the
 * executor thread's own connection. Subclasses supply the conflict keys and the request code.
 *
 * <pre>{@code
 * final class Bank extends H2Application {
 *     Bank(H2State state) { super(state); }
 *     public ConflictKeys conflictKeys(byte[] payload) { ... }
 *     protected byte[] execute(Connection c, byte[] payload, ExecutionContext context) throws SQLException {
 *         try (PreparedStatement ps = c.prepareStatement("UPDATE account SET balance = balance + ? WHERE id = ?")) {
 *             ...
 *         }
 *     }
 * }
 * }</pre>
 *
 * <p>Threads: {@link #execute(byte[], ExecutionContext)} is called by the executor threads concurrently.
 */
public abstract class H2Application implements Application {
    private final H2State state;

    protected H2Application(H2State state) {
        this.state = Objects.requireNonNull(state, "state");
    }

    @Override
    public final H2State state() {
        return state;
    }

    /** Runs {@link #execute(Connection, byte[], ExecutionContext)} in one transaction; a throw rolls it back. */
    @Override
    public final byte[] execute(byte[] payload, ExecutionContext context) throws Exception {
        return state.execute((connection, ctx) -> execute(connection, payload, ctx), context);
    }

    /**
     * Executes one request on {@code connection}, inside its transaction. Throwing rolls the transaction
     * back; the exception becomes the request's error reply.
     */
    protected abstract byte[] execute(Connection connection, byte[] payload, ExecutionContext context) throws Exception;
}
