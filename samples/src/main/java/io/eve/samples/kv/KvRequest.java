package io.eve.samples.kv;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A request to the {@link KeyValueStore} and its wire format. All numbers are big-endian:
 *
 * <pre>
 * READ           0x01 | id (8)                              9 bytes
 * UPDATE         0x02 | id (8) | length (4) | value         13 + length bytes
 * SEEDED_UPDATE  0x03 | id (8) | seed (8)                   17 bytes
 * </pre>
 *
 * <p>{@link #decode} checks the structure only; whether the id exists and the value has the store's
 * object size is for the store to say. Immutable.
 */
public sealed interface KvRequest permits KvRequest.Read, KvRequest.Update, KvRequest.SeededUpdate {
    byte READ = 0x01;
    byte UPDATE = 0x02;
    byte SEEDED_UPDATE = 0x03;

    /** The object the request addresses. */
    long id();

    /** Returns the object's bytes. */
    record Read(long id) implements KvRequest {
        public Read {
            requireValidId(id);
        }
    }

    /** Replaces the object's bytes with {@code value}; the reply is the object's new version. */
    record Update(long id, byte[] value) implements KvRequest {
        public Update {
            requireValidId(id);
            value = value.clone();
        }

        @Override
        public byte[] value() {
            return value.clone();
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Update that && id == that.id && Arrays.equals(value, that.value);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(id) * 31 + Arrays.hashCode(value);
        }

        @Override
        public String toString() {
            return "Update[id=" + id + ", " + value.length + " bytes]";
        }
    }

    /**
     * Replaces the object's bytes with content derived from {@code seed} and the request's random source,
     * so a client can drive writes without shipping the object; the reply is the new version.
     */
    record SeededUpdate(long id, long seed) implements KvRequest {
        public SeededUpdate {
            requireValidId(id);
        }
    }

    static byte[] encode(KvRequest request) {
        if (request instanceof Read read) {
            return ByteBuffer.allocate(9).put(READ).putLong(read.id()).array();
        }
        if (request instanceof Update update) {
            byte[] value = update.value();
            return ByteBuffer.allocate(13 + value.length)
                    .put(UPDATE)
                    .putLong(update.id())
                    .putInt(value.length)
                    .put(value)
                    .array();
        }
        SeededUpdate seeded = (SeededUpdate) request;
        return ByteBuffer.allocate(17)
                .put(SEEDED_UPDATE)
                .putLong(seeded.id())
                .putLong(seeded.seed())
                .array();
    }

    /**
     * Parses a payload.
     *
     * @throws IllegalArgumentException saying what is wrong with the payload and what was expected
     */
    static KvRequest decode(byte[] payload) {
        if (payload == null || payload.length == 0) {
            throw new IllegalArgumentException("empty payload: expected an operation byte"
                    + " (1 READ, 2 UPDATE, 3 SEEDED_UPDATE) followed by an object id");
        }
        ByteBuffer buffer = ByteBuffer.wrap(payload);
        byte operation = buffer.get();
        switch (operation) {
            case READ:
                requireLength("READ", payload, 9);
                return new Read(buffer.getLong());
            case UPDATE:
                return decodeUpdate(payload, buffer);
            case SEEDED_UPDATE:
                requireLength("SEEDED_UPDATE", payload, 17);
                return new SeededUpdate(buffer.getLong(), buffer.getLong());
            default:
                throw new IllegalArgumentException(
                        "unknown operation " + operation + ": expected 1 (READ), 2 (UPDATE) or 3 (SEEDED_UPDATE)");
        }
    }

    private static KvRequest decodeUpdate(byte[] payload, ByteBuffer buffer) {
        if (payload.length < 13) {
            throw new IllegalArgumentException(
                    "an UPDATE needs at least 13 bytes (operation, id, value length), got " + payload.length);
        }
        long id = buffer.getLong();
        int length = buffer.getInt();
        if (length != buffer.remaining()) {
            throw new IllegalArgumentException("an UPDATE of object " + id + " declares a " + length
                    + "-byte value but carries " + buffer.remaining() + " bytes");
        }
        byte[] value = new byte[length];
        buffer.get(value);
        return new Update(id, value);
    }

    private static void requireLength(String operation, byte[] payload, int expected) {
        if (payload.length != expected) {
            throw new IllegalArgumentException(
                    "a " + operation + " is " + expected + " bytes long, got " + payload.length);
        }
    }

    private static void requireValidId(long id) {
        if (id < 0) {
            throw new IllegalArgumentException("object ids are not negative, got " + id);
        }
    }
}
