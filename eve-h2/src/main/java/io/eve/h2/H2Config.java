package io.eve.h2;

import io.eve.merkle.StateException;
import java.util.List;
import java.util.Objects;

/**
 * Immutable settings of an {@link H2State}, validated by its builder.
 *
 * @param url the JDBC URL of an embedded H2 database, normally {@code jdbc:h2:mem:NAME}; one per replica
 * @param user the user every connection opens as (needs admin rights for the setup)
 * @param password its password
 * @param bucketsPerTable the bucket count of every table, a power of two
 * @param schema the DDL run at build time, before the triggers are installed
 * @param lockTimeoutMillis how long a request waits for a row lock before failing
 * @param setupMillis the clock SQL functions see during {@link H2State#load}
 * @param debug whether every seal also rescans every table and fails on a digest mismatch
 */
public record H2Config(
        String url,
        String user,
        String password,
        int bucketsPerTable,
        List<String> schema,
        long lockTimeoutMillis,
        long setupMillis,
        boolean debug) {
    public H2Config {
        Objects.requireNonNull(url, "url");
        schema = List.copyOf(schema);
    }

    /** Settings with defaults for everything but the URL: 1024 buckets per table, a 10 s lock timeout. */
    public static Builder builder() {
        return new Builder();
    }

    /** Collects and validates the settings; {@link #build} creates the state. */
    public static final class Builder {
        private String url;
        private String user = "sa";
        private String password = "";
        private int bucketsPerTable = 1024;
        private List<String> schema = List.of();
        private long lockTimeoutMillis = 10_000;
        private long setupMillis;
        private boolean debug;

        private Builder() {}

        /** An embedded H2 URL, e.g. {@code jdbc:h2:mem:replica1}; the database must be new or empty. */
        public Builder url(String url) {
            this.url = url;
            return this;
        }

        public Builder credentials(String user, String password) {
            this.user = Objects.requireNonNull(user, "user");
            this.password = Objects.requireNonNull(password, "password");
            return this;
        }

        /** Buckets per table: a power of two from 1 to 65536; more buckets make transfers finer. */
        public Builder bucketsPerTable(int buckets) {
            this.bucketsPerTable = buckets;
            return this;
        }

        /** The schema: CREATE TABLE, CREATE INDEX, ... run in order when the state is built. */
        public Builder schema(String... statements) {
            this.schema = List.of(statements);
            return this;
        }

        public Builder lockTimeoutMillis(long millis) {
            this.lockTimeoutMillis = millis;
            return this;
        }

        /** The timestamp CURRENT_TIMESTAMP and friends return while loading the initial data. */
        public Builder setupMillis(long millis) {
            this.setupMillis = millis;
            return this;
        }

        /** Rescan every table at every seal and fail if the incremental digests differ (for tests). */
        public Builder debug(boolean debug) {
            this.debug = debug;
            return this;
        }

        public H2Config toConfig() {
            if (url == null || !url.startsWith("jdbc:h2:")) {
                throw new StateException("an eve-h2 state needs an embedded H2 URL (jdbc:h2:...), got " + url);
            }
            if (bucketsPerTable < 1 || bucketsPerTable > 65536 || Integer.bitCount(bucketsPerTable) != 1) {
                throw new StateException("bucketsPerTable must be a power of two in 1..65536, got " + bucketsPerTable);
            }
            if (lockTimeoutMillis < 0) {
                throw new StateException("lockTimeoutMillis must not be negative, got " + lockTimeoutMillis);
            }
            return new H2Config(url, user, password, bucketsPerTable, schema, lockTimeoutMillis, setupMillis, debug);
        }

        /**
         * Creates the database objects and returns the state at version {@link H2State#NOTHING}: load the
         * initial rows with {@link H2State#load}, then seal version 0.
         *
         * @throws StateException if the schema breaks a rule (no primary key, identity column, sequence,
         *     unsupported column type) or the database cannot be opened
         */
        public H2State build() {
            return H2State.open(toConfig());
        }
    }
}
