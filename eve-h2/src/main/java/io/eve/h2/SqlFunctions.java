package io.eve.h2;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;

/**
 * The deterministic replacements for H2's clock and random built-ins. Not for applications: public
 * only because H2 calls these methods by name. {@link H2State} turns on {@code BUILTIN_ALIAS_OVERRIDE}
 * and aliases each name in {@link #ALIASES} to a method here, so {@code CURRENT_TIMESTAMP},
 * {@code RAND()} and the rest (column defaults included) read the request's batch timestamp and its
 * seeded random source instead of the wall clock. Times are in UTC.
 */
public final class SqlFunctions {
    /** A built-in name and the method of this class that replaces it. */
    record Alias(String builtin, String method) {}

    static final List<Alias> ALIASES = List.of(
            new Alias("CURRENT_TIMESTAMP", "currentTimestamp"),
            new Alias("NOW", "currentTimestamp"),
            new Alias("SYSTIMESTAMP", "currentTimestamp"),
            new Alias("GETDATE", "currentTimestamp"),
            new Alias("LOCALTIMESTAMP", "localTimestamp"),
            new Alias("SYSDATE", "localTimestamp"),
            new Alias("CURRENT_DATE", "currentDate"),
            new Alias("TODAY", "currentDate"),
            new Alias("CURRENT_TIME", "currentTime"),
            new Alias("LOCALTIME", "localTime"),
            new Alias("RAND", "rand"),
            new Alias("RANDOM", "rand"),
            new Alias("RANDOM_UUID", "randomUuid"),
            new Alias("UUID", "randomUuid"),
            new Alias("SECURE_RAND", "secureRand"));

    private SqlFunctions() {}

    public static OffsetDateTime currentTimestamp() {
        return Instant.ofEpochMilli(session("CURRENT_TIMESTAMP").clockMillis()).atOffset(ZoneOffset.UTC);
    }

    /** The precision argument is accepted and ignored: the batch timestamp has millisecond precision. */
    public static OffsetDateTime currentTimestamp(int precision) {
        return currentTimestamp();
    }

    public static LocalDateTime localTimestamp() {
        return currentTimestamp().toLocalDateTime();
    }

    public static LocalDateTime localTimestamp(int precision) {
        return localTimestamp();
    }

    public static LocalDate currentDate() {
        return currentTimestamp().toLocalDate();
    }

    public static OffsetTime currentTime() {
        return currentTimestamp().toOffsetTime();
    }

    public static OffsetTime currentTime(int precision) {
        return currentTime();
    }

    public static LocalTime localTime() {
        return currentTimestamp().toLocalTime();
    }

    public static LocalTime localTime(int precision) {
        return localTime();
    }

    public static double rand() {
        return session("RAND").random().nextDouble();
    }

    /** A seeded call is deterministic in H2 already; it still draws from the request's source. */
    public static double rand(int seed) {
        return rand();
    }

    public static UUID randomUuid() {
        // A version-4 layout from the request's random source.
        java.util.SplittableRandom random = session("RANDOM_UUID").random();
        long high = (random.nextLong() & ~0xF000L) | 0x4000L;
        long low = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(high, low);
    }

    public static byte[] secureRand(int length) {
        byte[] bytes = new byte[Math.max(0, length)];
        session("SECURE_RAND").random().nextBytes(bytes);
        return bytes;
    }

    private static Session session(String function) {
        Session session = Session.current();
        if (session == null) {
            throw new IllegalStateException(function + " is deterministic in an eve-h2 database and has a value"
                    + " only inside H2State.execute or H2State.load");
        }
        return session;
    }
}
