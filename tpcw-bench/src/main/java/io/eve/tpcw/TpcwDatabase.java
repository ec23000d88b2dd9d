package io.eve.tpcw;

import io.eve.h2.H2State;
import io.eve.tpcw.schema.DataGenerator;
import io.eve.tpcw.schema.Scale;
import io.eve.tpcw.schema.TpcwSchema;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Builds populated TPC-W databases: an eve-h2 {@link H2State} sealed at version 0 (a replica's state), or
 * a plain H2 database with no eve-h2 triggers (the unreplicated baseline). Both hold the same rows for the
 * same scale and seed.
 */
public final class TpcwDatabase {
    private TpcwDatabase() {}

    /**
     * A new eve-h2 state at {@code url} (a fresh {@code jdbc:h2:mem:} name), populated and sealed at 0.
     *
     * @throws Exception if the database cannot be built or populated
     */
    public static H2State newState(String url, Scale scale, long seed) throws Exception {
        H2State state = H2State.builder()
                .url(url)
                .schema(TpcwSchema.ddlArray())
                .setupMillis(DataGenerator.BASE_MILLIS)
                .build();
        try {
            DataGenerator generator = new DataGenerator(scale, seed);
            state.load((connection, context) -> {
                generator.populate(connection);
                return new byte[0];
            });
            state.seal(0);
            return state;
        } catch (Exception | Error e) {
            state.close();
            throw e;
        }
    }

    /**
     * Creates and populates a plain H2 database at {@code url}; the returned connection keeps the in-memory
     * database alive until it is closed.
     */
    public static Connection newPlain(String url, Scale scale, long seed) throws SQLException {
        Connection keeper = DriverManager.getConnection(url, "sa", "");
        try {
            try (Statement statement = keeper.createStatement()) {
                statement.execute("SET DEFAULT_LOCK_TIMEOUT 10000");
                for (String ddl : TpcwSchema.ddl()) {
                    statement.execute(ddl);
                }
            }
            keeper.setAutoCommit(false);
            new DataGenerator(scale, seed).populate(keeper);
            keeper.commit();
            return keeper;
        } catch (SQLException | RuntimeException e) {
            keeper.close();
            throw e;
        }
    }
}
