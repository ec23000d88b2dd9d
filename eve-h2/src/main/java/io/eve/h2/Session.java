package io.eve.h2;

import io.eve.ExecutionContext;
import io.eve.merkle.StateException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * One JDBC connection of an {@link H2State} and the transaction open on it: the buffer its row triggers
 * fill and the clock and random source its SQL functions read.
 *
 * <p>Owned by one thread at a time (an executor thread, or the execution stage for rollback and
 * transfer). While a transaction is open the session is the thread's current one, which is how a
 * trigger or a SQL function, called by H2 on that thread, finds it.
 */
final class Session implements AutoCloseable {
    private static final ThreadLocal<Session> CURRENT = new ThreadLocal<>();

    private final H2State state;
    private final Connection connection;
    private final Connection guarded;
    private ChangeBuffer buffer;
    private long clockMillis;
    private Supplier<SplittableRandom> random;
    /** Whether the execution stage's request scope is open: the transaction then lasts until it ends. */
    private boolean inRequest;
    /** Whether work runs now, so that work calling {@code execute} again is refused. */
    private boolean running;

    Session(H2State state, Connection connection) throws SQLException {
        this.state = state;
        this.connection = connection;
        connection.setAutoCommit(false);
        this.guarded = SqlGuard.guard(connection, state.forbidden());
    }

    /** The session whose transaction is open on the calling thread, or {@code null}. */
    static Session current() {
        return CURRENT.get();
    }

    H2State state() {
        return state;
    }

    Connection connection() {
        return connection;
    }

    ChangeBuffer buffer() {
        return buffer;
    }

    long clockMillis() {
        return clockMillis;
    }

    SplittableRandom random() {
        return random.get();
    }

    /**
     * Runs {@code work} in a transaction: outside a request, its own, committed and published on success;
     * inside one, the request's, opened by its first work and committed when the request ends. A failure
     * rolls the transaction back (inside a request, all of the request's work so far).
     */
    byte[] run(SqlWork work, ExecutionContext context) throws Exception {
        if (running) {
            throw new IllegalStateException("an eve-h2 transaction is already open on this thread");
        }
        if (buffer == null) {
            begin(true, context.timestampMillis(), context::random);
        }
        running = true;
        try {
            byte[] reply = work.run(guarded, context);
            if (!inRequest) {
                state.commit(this);
                end();
            }
            return reply;
        } catch (Exception | Error e) {
            rollback(e);
            end();
            throw e;
        } finally {
            running = false;
        }
    }

    void beginRequest() {
        if (inRequest) {
            throw new StateException("a request is already open on this thread");
        }
        inRequest = true;
    }

    /** Commits the request's transaction, if its work opened one; a failed commit rolls it back. */
    void endRequest() {
        inRequest = false;
        if (buffer == null) {
            return;
        }
        try {
            state.commit(this);
        } catch (SQLException | RuntimeException e) {
            rollback(e);
            throw new StateException("the request's transaction did not commit", e);
        } finally {
            end();
        }
    }

    /** Rolls back the request's transaction, if its work opened one and it is still open. */
    void abortRequest() {
        inRequest = false;
        if (buffer == null) {
            return;
        }
        try {
            connection.rollback();
        } catch (SQLException e) {
            throw new StateException("the failed request's transaction did not roll back", e);
        } finally {
            end();
        }
    }

    void begin(boolean recordUndo, long millis, Supplier<SplittableRandom> randomSource) {
        if (buffer != null || CURRENT.get() != null) {
            throw new IllegalStateException("an eve-h2 transaction is already open on this thread");
        }
        buffer = new ChangeBuffer(recordUndo);
        clockMillis = millis;
        random = randomSource;
        CURRENT.set(this);
    }

    void end() {
        buffer = null;
        random = null;
        CURRENT.remove();
    }

    /** Rolls the open transaction back, keeping any failure as suppressed by {@code cause}. */
    void rollback(Throwable cause) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
