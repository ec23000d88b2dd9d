package io.eve.tpcw.bench;

import io.eve.ExecutionContext;
import io.eve.tpcw.TpcwDatabase;
import io.eve.tpcw.interaction.Transactions;
import io.eve.tpcw.schema.Scale;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The unreplicated server: plain H2 (no eve-h2 triggers or digests), a pool of T threads each with its own
 * connection, one transaction per interaction, concurrency control left to H2's row locks. With one
 * thread this is the sequential baseline. Thread-safe.
 */
final class PlainTarget implements Target {
    private final String url;
    private final Connection keeper;
    private final Transactions transactions;
    private final ExecutorService pool;
    private final Map<Thread, Connection> connections = new ConcurrentHashMap<>();
    private final AtomicLong seq = new AtomicLong();
    private final AtomicLong committed = new AtomicLong();

    PlainTarget(String url, Scale scale, long seed, int threads) throws SQLException {
        this.url = url;
        this.keeper = TpcwDatabase.newPlain(url, scale, seed);
        this.transactions = new Transactions(scale.items());
        this.pool = Executors.newFixedThreadPool(threads, runnable -> {
            Thread thread = new Thread(runnable, "tpcw-plain");
            thread.setDaemon(true);
            return thread;
        });
    }

    @Override
    public boolean call(long clientId, byte[] payload) throws Exception {
        return pool.submit(() -> run(clientId, payload)).get();
    }

    private boolean run(long clientId, byte[] payload) throws SQLException {
        Connection c = connections.computeIfAbsent(Thread.currentThread(), t -> open());
        long n = seq.incrementAndGet();
        ExecutionContext context = new ExecutionContext(n, 0, System.currentTimeMillis(), n, clientId, n);
        try {
            transactions.run(c, payload, context);
            c.commit();
            committed.incrementAndGet();
            return true;
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            return false;
        }
    }

    private Connection open() {
        try {
            Connection c = DriverManager.getConnection(url, "sa", "");
            c.setAutoCommit(false);
            return c;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot connect to " + url, e);
        }
    }

    @Override
    public PipelineCounters counters() {
        return PipelineCounters.NONE;
    }

    @Override
    public long committed() {
        return committed.get();
    }

    @Override
    public Connection inspect() throws SQLException {
        return DriverManager.getConnection(url, "sa", "");
    }

    @Override
    public RootCheck checkRoots() {
        return RootCheck.NOT_REPLICATED;
    }

    @Override
    public void close() {
        pool.shutdownNow();
        for (Connection c : connections.values()) {
            closeQuietly(c);
        }
        closeQuietly(keeper);
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            // closing an in-memory database at the end of a run; nothing left to protect
        }
    }
}
