package io.eve.h2;

import io.eve.ExecutionContext;
import io.eve.merkle.ApplyResult;
import io.eve.merkle.Digest;
import io.eve.merkle.StateDelta;
import io.eve.merkle.StateException;
import io.eve.merkle.VersionedState;
import io.eve.merkle.codec.HashSink;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An embedded H2 database as a {@link VersionedState} (DESIGN.md section 8, docs/h2.md).
 *
 * <p>Row triggers on every replicated table report each committed row change. Their effects are kept per
 * transaction and published only when it commits: into per-bucket AdHash digests (rows bucketed by a hash
 * of the primary key) and into the undo log of the batch in progress. {@link #seal} rehashes the dirty
 * buckets and their Merkle paths and combines the table roots into the state root; {@link #rollbackTo}
 * replays undo logs in reverse and checks the root; {@link #deltaSince} and {@link #apply} ship and
 * replace whole buckets.
 *
 * <pre>{@code
 * H2State state = H2State.builder()
 *         .url("jdbc:h2:mem:replica1")
 *         .schema("CREATE TABLE account (id INT PRIMARY KEY, balance BIGINT NOT NULL)")
 *         .build();
 * state.load((c, ctx) -> { ...insert the initial rows...; return null; });
 * state.seal(0);
 * }</pre>
 *
 * <p>Threads: {@link #execute} is called by the executor threads concurrently, each with its own
 * connection. Every other method is called by one thread while no request runs.
 */
public final class H2State implements VersionedState, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(H2State.class);
    private static final int ROOT_DOMAIN = 0x44;

    private final H2Config config;
    private final Session admin;
    private final Map<String, TableState> tables;
    private final List<TableState> ordered;
    private final Set<String> forbidden;
    private final Object commitLock = new Object();
    private final Map<Thread, Session> sessions = new ConcurrentHashMap<>();
    private final NavigableMap<Long, Version> versions = new TreeMap<>();
    private List<RowChange> undo = new ArrayList<>();
    private long sealed = NOTHING;
    private long stable = NOTHING;

    /** One sealed version: its root and the log that undoes the batch that produced it. */
    record Version(long seq, Digest root, List<RowChange> undo) {}

    private H2State(H2Config config, Connection connection, List<TableSchema> schemas, Set<String> forbidden)
            throws SQLException {
        this.config = config;
        this.forbidden = Set.copyOf(forbidden);
        Map<String, TableState> byKey = new LinkedHashMap<>();
        for (TableSchema schema : schemas) {
            byKey.put(schema.key(), new TableState(schema, new Buckets(config.bucketsPerTable())));
        }
        this.tables = Collections.unmodifiableMap(byKey);
        this.ordered = List.copyOf(byKey.values());
        this.admin = new Session(this, connection);
    }

    /** The builder of the settings; its {@code build()} opens the state. */
    public static H2Config.Builder builder() {
        return H2Config.builder();
    }

    static H2State open(H2Config config) {
        Connection connection = null;
        try {
            connection = DriverManager.getConnection(config.url(), config.user(), config.password());
            Set<String> forbidden = new HashSet<>();
            try (Statement s = connection.createStatement()) {
                s.execute("SET DEFAULT_LOCK_TIMEOUT " + config.lockTimeoutMillis());
                s.execute("SET BUILTIN_ALIAS_OVERRIDE TRUE");
                for (SqlFunctions.Alias alias : SqlFunctions.ALIASES) {
                    overrideBuiltin(s, alias, forbidden);
                }
                for (String statement : config.schema()) {
                    s.execute(statement);
                }
            }
            List<TableSchema> schemas = TableSchema.loadAll(connection);
            try (Statement s = connection.createStatement()) {
                for (TableSchema table : schemas) {
                    createTrigger(s, table, "EVE_H2_GUARD_", "BEFORE INSERT, UPDATE, DELETE");
                    createTrigger(s, table, "EVE_H2_", "AFTER INSERT, UPDATE, DELETE, ROLLBACK");
                }
            }
            H2State state = new H2State(config, connection, schemas, forbidden);
            state.initialize();
            return state;
        } catch (SQLException e) {
            closeQuietly(connection, e);
            throw new StateException("cannot open the eve-h2 database " + config.url() + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly(connection, e);
            throw e;
        }
    }

    private static void createTrigger(Statement s, TableSchema table, String prefix, String events)
            throws SQLException {
        s.execute("CREATE TRIGGER " + TableSchema.quote(table.schema()) + "."
                + TableSchema.quote(prefix + table.table())
                + " " + events + " ON " + table.quotedName() + " FOR EACH ROW CALL '" + RowTrigger.class.getName()
                + "'");
    }

    private static void overrideBuiltin(Statement s, SqlFunctions.Alias alias, Set<String> forbidden) {
        try {
            s.execute("CREATE ALIAS " + alias.builtin() + " FOR '" + SqlFunctions.class.getName() + "." + alias.method()
                    + "'");
        } catch (SQLException e) {
            // This H2 version does not let us replace the built-in: refuse it in requests instead.
            LOG.warn(
                    "cannot override SQL built-in {}, requests that use it are rejected: {}",
                    alias.builtin(),
                    e.getMessage());
            forbidden.add(alias.builtin());
        }
    }

    /** Folds rows the schema statements inserted (before the triggers existed) into the digests. */
    private void initialize() throws SQLException {
        for (TableState table : ordered) {
            Scans.forEachRow(
                    admin.connection(),
                    table.schema(),
                    row -> table.buckets()
                            .add(
                                    RowCodec.bucket(
                                            table.schema(), row, table.buckets().count()),
                                    rowDigest(table, row),
                                    1));
            table.buckets().refresh();
        }
        admin.connection().commit();
        versions.put(NOTHING, new Version(NOTHING, computeRoot(), List.of()));
    }

    /**
     * Runs {@code work} as one transaction on the calling thread's connection and returns its reply. The
     * transaction commits, and its row changes count, only if {@code work} returns; if it throws, the
     * transaction is rolled back, nothing of it reaches the digests or the undo log, and the exception
     * propagates. Inside a request of the execution stage ({@link #beginRequest}) the transaction is the
     * request's: it commits when the request returns and rolls back if the request throws, even after
     * {@code work} returned; a second call in the same request continues it.
     */
    public byte[] execute(SqlWork work, ExecutionContext context) throws Exception {
        Objects.requireNonNull(work, "work");
        Objects.requireNonNull(context, "context");
        return session().run(work, context);
    }

    private Session session() {
        Session session = sessions.get(Thread.currentThread());
        return session != null ? session : sessions.computeIfAbsent(Thread.currentThread(), t -> newSession());
    }

    @Override
    public void beginRequest() {
        session().beginRequest();
    }

    /** Commits the request's transaction; a failed commit throws, with the transaction rolled back. */
    @Override
    public void endRequest() {
        session().endRequest();
    }

    @Override
    public void abortRequest() {
        session().abortRequest();
    }

    /**
     * Runs setup work (the initial rows) as one transaction, before version 0 is sealed; SQL time
     * functions return the configured setup time.
     */
    public void load(SqlWork work) throws Exception {
        execute(work, new ExecutionContext(NOTHING, 0, config.setupMillis(), 0, 0, 0));
    }

    private Session newSession() {
        try {
            return new Session(this, DriverManager.getConnection(config.url(), config.user(), config.password()));
        } catch (SQLException e) {
            throw new StateException("cannot open a connection to " + config.url(), e);
        }
    }

    /** Commits the session's transaction and publishes its buffer, atomically with respect to other commits. */
    void commit(Session session) throws SQLException {
        session.buffer().requireComplete();
        synchronized (commitLock) {
            session.connection().commit();
            publish(session.buffer().drainEntries(), 1);
            undo.addAll(session.buffer().changes());
        }
    }

    private static void publish(List<ChangeBuffer.Entry> entries, int sign) {
        for (ChangeBuffer.Entry e : entries) {
            e.table().buckets().add(e.bucket(), e.rowDigest(), e.sign() * sign);
        }
    }

    @Override
    public boolean hasUnsealedWrites() {
        synchronized (commitLock) {
            return !undo.isEmpty();
        }
    }

    @Override
    public Digest seal(long seq) {
        synchronized (commitLock) {
            if (seq != sealed + 1) {
                throw new StateException("seal(" + seq + ") out of order: the last sealed version is " + sealed);
            }
            for (TableState table : ordered) {
                table.buckets().markModified(table.buckets().refresh(), seq);
            }
            if (config.debug()) {
                checkAgainstScan(seq);
            }
            Digest root = computeRoot();
            versions.put(seq, new Version(seq, root, undo));
            undo = new ArrayList<>();
            sealed = seq;
            return root;
        }
    }

    @Override
    public void rollbackTo(long seq) {
        synchronized (commitLock) {
            if (seq < stable || seq > sealed || !versions.containsKey(seq)) {
                throw new StateException(
                        "cannot roll back to " + seq + ": the versions that can be restored are " + versions.keySet());
            }
            // Every change since seq in the order it committed, then undone newest first.
            List<RowChange> changes = new ArrayList<>();
            versions.tailMap(seq, false).values().forEach(v -> changes.addAll(v.undo()));
            changes.addAll(undo);
            Collections.reverse(changes);
            inAdminTransaction(false, writer -> {
                for (RowChange change : changes) {
                    writer.undo(change);
                }
                return null;
            });
            ordered.forEach(t -> t.buckets().refresh());
            versions.tailMap(seq, false).clear();
            undo = new ArrayList<>();
            sealed = seq;
            Digest root = computeRoot();
            if (!root.equals(versions.get(seq).root())) {
                throw new StateException("rollback to " + seq + " restored root " + root + ", but the sealed root was "
                        + versions.get(seq).root() + "; the database was changed outside eve-h2");
            }
            LOG.warn("{}: rolled back to {} undoing {} row changes", config.url(), seq, changes.size());
        }
    }

    /** Runs {@code body} in one admin transaction with foreign-key checks (and cascades) off; commits it. */
    private <T> T inAdminTransaction(boolean recordUndo, SqlBody<T> body) {
        setReferentialIntegrity(false);
        admin.begin(recordUndo, config.setupMillis(), () -> new SplittableRandom(0));
        try (RowWriter writer = new RowWriter(admin.connection())) {
            T result = body.run(writer);
            admin.buffer().requireComplete();
            admin.connection().commit();
            publish(admin.buffer().drainEntries(), 1);
            return result;
        } catch (SQLException | RuntimeException e) {
            admin.rollback(e);
            throw new StateException("eve-h2 could not restore rows: " + e.getMessage(), e);
        } finally {
            admin.end();
            setReferentialIntegrity(true);
        }
    }

    /** Work on the admin connection inside an open transaction. */
    interface SqlBody<T> {
        T run(RowWriter writer) throws SQLException;
    }

    void setReferentialIntegrity(boolean on) {
        try (Statement s = admin.connection().createStatement()) {
            s.execute("SET REFERENTIAL_INTEGRITY " + (on ? "TRUE" : "FALSE"));
        } catch (SQLException e) {
            throw new StateException("cannot switch referential integrity " + (on ? "on" : "off"), e);
        }
    }

    @Override
    public void markStable(long seq) {
        if (seq < stable || seq > sealed || !versions.containsKey(seq)) {
            throw new StateException("cannot mark " + seq + " stable: stable is " + stable + ", the kept versions are "
                    + versions.keySet());
        }
        versions.headMap(seq, false).clear();
        versions.put(seq, new Version(seq, versions.get(seq).root(), List.of()));
        stable = seq;
    }

    @Override
    public long sealedSeq() {
        return sealed;
    }

    @Override
    public long stableSeq() {
        return stable;
    }

    @Override
    public Digest rootAt(long seq) {
        Version version = versions.get(seq);
        if (version == null) {
            throw new StateException("version " + seq + " is not kept; the kept versions are " + versions.keySet());
        }
        return version.root();
    }

    /**
     * {@inheritDoc}
     *
     * <p>For a version before the last sealed one, the rows of the shipped buckets are read as they are now
     * and the row changes of the later batches are undone on those rows in memory, newest first; the database
     * is not touched. Every bucket such a change touched was modified after {@code sinceSeq}, so it ships.
     */
    @Override
    public StateDelta deltaSince(long sinceSeq, long targetSeq) {
        synchronized (commitLock) {
            if (targetSeq > sealed || !versions.containsKey(targetSeq)) {
                throw new StateException(
                        "no delta to version " + targetSeq + ": the versions kept are " + versions.keySet());
            }
            if (sinceSeq < NOTHING || sinceSeq > targetSeq) {
                throw new StateException("no delta since " + sinceSeq + " to version " + targetSeq);
            }
            requireNoUnsealedWrites("deltaSince");
            boolean full = sinceSeq == NOTHING;
            Map<String, BitSet> buckets = new TreeMap<>();
            for (TableState table : ordered) {
                Buckets b = table.buckets();
                BitSet shipped = new BitSet();
                for (int i = 0; i < b.count(); i++) {
                    // A full delta of an older version also ships the buckets emptied after it.
                    if (full ? b.rows(i) > 0 || b.lastModified(i) > targetSeq : b.lastModified(i) > sinceSeq) {
                        shipped.set(i);
                    }
                }
                buckets.put(table.key(), shipped);
            }
            List<RowChange> later = new ArrayList<>();
            versions.tailMap(targetSeq, false).values().forEach(v -> later.addAll(v.undo()));
            return new Transfer(this).delta(sinceSeq, targetSeq, full, buckets, later);
        }
    }

    /**
     * A delta from the sealed version to itself that carries the full content of the given buckets: the
     * repair of a replica whose buckets differ (compare {@link #tableRoots} and then {@link #bucketDigests}
     * top-down, then ship only the buckets that differ). The receiver {@link #apply}s it with this
     * state's sealed version and root.
     *
     * @param buckets the bucket indexes per table key ({@code SCHEMA.TABLE})
     */
    public StateDelta deltaForBuckets(Map<String, BitSet> buckets) {
        requireNoUnsealedWrites("deltaForBuckets");
        for (Map.Entry<String, BitSet> e : buckets.entrySet()) {
            TableState table = tables.get(e.getKey());
            if (table == null || e.getValue().length() > table.buckets().count()) {
                throw new StateException("no table " + e.getKey() + " with buckets " + e.getValue() + "; tables are "
                        + tables.keySet() + " with " + config.bucketsPerTable() + " buckets each");
            }
        }
        return new Transfer(this).delta(sealed, sealed, false, buckets, List.of());
    }

    @Override
    public ApplyResult apply(StateDelta delta, long expectedSeq, Digest expectedRoot) {
        Objects.requireNonNull(expectedRoot, "expectedRoot");
        if (delta.baseSeq() != sealed) {
            throw new StateException("a delta from version " + delta.baseSeq() + " needs the state at that version;"
                    + " it is at " + sealed + " (roll back first)");
        }
        requireNoUnsealedWrites("apply");
        if (delta.targetSeq() != expectedSeq) {
            return ApplyResult.rejected(
                    null, "the delta leads to version " + delta.targetSeq() + ", the agreed version is " + expectedSeq);
        }
        synchronized (commitLock) {
            return new Transfer(this).apply(delta, expectedRoot);
        }
    }

    /** The root of each table at the sealed version, by key ({@code SCHEMA.TABLE}), in key order. */
    public Map<String, Digest> tableRoots() {
        requireNoUnsealedWrites("tableRoots");
        Map<String, Digest> out = new TreeMap<>();
        ordered.forEach(t -> out.put(t.key(), t.buckets().root()));
        return out;
    }

    /** The digest of every bucket of {@code table} at the sealed version, by bucket index. */
    public List<Digest> bucketDigests(String table) {
        requireNoUnsealedWrites("bucketDigests");
        TableState state = tables.get(table);
        if (state == null) {
            throw new StateException("no replicated table " + table + "; tables are " + tables.keySet());
        }
        List<Digest> out = new ArrayList<>();
        for (int i = 0; i < state.buckets().count(); i++) {
            out.add(state.buckets().bucketDigest(i));
        }
        return out;
    }

    /**
     * The root computed from a full scan of every table, ignoring the incremental digests: for audits
     * and tests. Equals {@link #rootAt} of the sealed version when nothing changed the database behind
     * eve-h2's back. Call it while no request runs.
     */
    public Digest scanRoot() {
        return combine(scanBuckets());
    }

    /** The keys of the replicated tables ({@code SCHEMA.TABLE}), in order. */
    public List<String> tableKeys() {
        return List.copyOf(tables.keySet());
    }

    private Map<TableState, Buckets> scanBuckets() {
        Map<TableState, Buckets> out = new LinkedHashMap<>();
        try {
            for (TableState table : ordered) {
                Buckets buckets = new Buckets(config.bucketsPerTable());
                Scans.forEachRow(
                        admin.connection(),
                        table.schema(),
                        row -> buckets.add(
                                RowCodec.bucket(table.schema(), row, buckets.count()), rowDigest(table, row), 1));
                buckets.refresh();
                out.put(table, buckets);
            }
            admin.connection().commit();
        } catch (SQLException e) {
            throw new StateException("cannot scan the eve-h2 database: " + e.getMessage(), e);
        }
        return out;
    }

    private void checkAgainstScan(long seq) {
        scanBuckets().forEach((table, scanned) -> {
            for (int i = 0; i < scanned.count(); i++) {
                if (!scanned.bucketDigest(i).equals(table.buckets().bucketDigest(i))) {
                    throw new StateException("debug check at seal(" + seq + "): bucket " + i + " of " + table.key()
                            + " holds " + scanned.rows(i) + " rows whose digest differs from the incremental one ("
                            + table.buckets().rows(i) + " rows); a write bypassed the row triggers");
                }
            }
        });
    }

    Digest computeRoot() {
        Map<TableState, Buckets> current = new LinkedHashMap<>();
        ordered.forEach(t -> current.put(t, t.buckets()));
        return combine(current);
    }

    /** root = SHA-256(0x44 || table count || per table in key order: key || table root || row count). */
    private static Digest combine(Map<TableState, Buckets> buckets) {
        HashSink sink = HashSink.forCurrentThread();
        sink.putByte(ROOT_DOMAIN);
        sink.putInt(buckets.size());
        buckets.forEach((table, b) -> {
            sink.putString(table.key());
            sink.putDigest(b.root());
            sink.putLong(b.rowCount());
        });
        return sink.finish();
    }

    static byte[] rowDigest(TableState table, Object[] row) {
        byte[] digest = new byte[Digest.LENGTH];
        RowCodec.digest(table.schema(), row, digest);
        return digest;
    }

    void requireNoUnsealedWrites(String operation) {
        synchronized (commitLock) {
            boolean dirty = ordered.stream().anyMatch(t -> t.buckets().isDirty());
            if (!undo.isEmpty() || dirty) {
                throw new StateException(operation + " needs a sealed state, but batch " + (sealed + 1)
                        + " has unsealed writes (seal or roll back first)");
            }
        }
    }

    /** Records a transferred version: {@code repair} when it replaced buckets at the sealed version. */
    void installVersion(long seq, Digest root, List<RowChange> changes) {
        if (seq == sealed) {
            // A repair rewrote the sealed version in place: the older undo logs no longer lead back.
            versions.clear();
            versions.put(seq, new Version(seq, root, List.of()));
            stable = seq;
        } else {
            versions.put(seq, new Version(seq, root, changes));
            sealed = seq;
        }
    }

    H2Config config() {
        return config;
    }

    Set<String> forbidden() {
        return forbidden;
    }

    Session admin() {
        return admin;
    }

    List<TableState> tables() {
        return ordered;
    }

    TableState table(String key) {
        return tables.get(key);
    }

    /** Publishes or (with {@code sign} -1) retracts bucket changes; for {@link Transfer}. */
    void publishEntries(List<ChangeBuffer.Entry> entries, int sign) {
        publish(entries, sign);
    }

    /** Closes every connection and drops the in-memory database. */
    @Override
    public void close() {
        List<Session> all = new ArrayList<>(sessions.values());
        sessions.clear();
        SQLException failure = null;
        for (Session session : all) {
            try {
                session.close();
            } catch (SQLException e) {
                failure = e;
            }
        }
        try (Statement s = admin.connection().createStatement()) {
            s.execute("SHUTDOWN");
        } catch (SQLException e) {
            failure = e;
        }
        try {
            admin.close();
        } catch (SQLException e) {
            failure = e;
        }
        if (failure != null) {
            throw new StateException("closing " + config.url() + " failed", failure);
        }
    }

    private static void closeQuietly(Connection connection, Exception cause) {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                cause.addSuppressed(e);
            }
        }
    }

    /** For tests: how many row changes the kept undo logs hold. */
    int keptUndoEntries() {
        return undo.size()
                + versions.values().stream().mapToInt(v -> v.undo().size()).sum();
    }
}
