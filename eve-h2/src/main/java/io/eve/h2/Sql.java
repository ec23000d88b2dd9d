package io.eve.h2;

import io.eve.ExecutionContext;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * Deterministic values to bind as SQL parameters: the request's batch timestamp in the types H2 columns
 * take, in UTC. Every replica computes the same values for the same request. For random numbers use
 * {@link ExecutionContext#random()}.
 *
 * <pre>{@code
 * ps.setObject(3, Sql.now(context)); // a TIMESTAMP WITH TIME ZONE column
 * }</pre>
 */
public final class Sql {
    private Sql() {}

    /** The batch timestamp as a TIMESTAMP WITH TIME ZONE value at UTC. */
    public static OffsetDateTime now(ExecutionContext context) {
        return Instant.ofEpochMilli(context.timestampMillis()).atOffset(ZoneOffset.UTC);
    }

    /** The batch timestamp as a TIMESTAMP value (UTC wall time). */
    public static LocalDateTime localNow(ExecutionContext context) {
        return now(context).toLocalDateTime();
    }

    /** The batch's date in UTC, for DATE columns. */
    public static LocalDate today(ExecutionContext context) {
        return now(context).toLocalDate();
    }
}
