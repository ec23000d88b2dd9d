package io.eve.merkle.graph;

import io.eve.merkle.codec.BufferSink;
import io.eve.merkle.codec.MalformedInputException;
import io.eve.merkle.codec.Sink;
import io.eve.merkle.codec.Source;

/**
 * The canonical, self-delimiting encoding of the keys and values that replicated collections hold: a type
 * tag, then the value. Keys may be {@code String}, {@code Integer} or {@code Long}; values may also be
 * {@code null}, {@code Boolean}, {@code Double}, {@code byte[]} (copied in and out) or a
 * {@link StateObject} (encoded by its id). Stateless and thread-safe.
 */
final class CanonicalValues {
    static final byte NULL = 0;
    static final byte BOOLEAN = 1;
    static final byte INTEGER = 2;
    static final byte LONG = 3;
    static final byte DOUBLE = 4;
    static final byte STRING = 5;
    static final byte BYTES = 6;
    static final byte OBJECT = 7;

    private CanonicalValues() {}

    static void checkKey(Object key) {
        if (!(key instanceof String || key instanceof Integer || key instanceof Long)) {
            throw new IllegalArgumentException("replicated collection keys are String, Integer or Long, got "
                    + (key == null ? "null" : key.getClass().getName()));
        }
    }

    static void checkValue(Object value) {
        if (!(value == null
                || value instanceof Boolean
                || value instanceof Integer
                || value instanceof Long
                || value instanceof Double
                || value instanceof String
                || value instanceof byte[]
                || value instanceof StateObject)) {
            throw new IllegalArgumentException("replicated collection values are null, Boolean, Integer, Long,"
                    + " Double, String, byte[] or a StateObject, got "
                    + value.getClass().getName());
        }
    }

    static byte[] encodeKey(Object key) {
        BufferSink sink = new BufferSink(16);
        encode(key, sink);
        return sink.toByteArray();
    }

    static void encode(Object value, Sink sink) {
        if (value == null) {
            sink.putByte(NULL);
        } else if (value instanceof Boolean b) {
            sink.putByte(BOOLEAN);
            sink.putBoolean(b);
        } else if (value instanceof Integer i) {
            sink.putByte(INTEGER);
            sink.putInt(i);
        } else if (value instanceof Long l) {
            sink.putByte(LONG);
            sink.putLong(l);
        } else if (value instanceof Double d) {
            sink.putByte(DOUBLE);
            sink.putDouble(d);
        } else if (value instanceof String s) {
            sink.putByte(STRING);
            sink.putString(s);
        } else if (value instanceof byte[] bytes) {
            sink.putByte(BYTES);
            sink.putByteArray(bytes);
        } else {
            sink.putByte(OBJECT);
            sink.putLong(FieldSlot.idOf((StateObject) value));
        }
    }

    /** Reads one value; a {@link StateObject} comes back as an {@link ObjectId} to resolve later. */
    static Object decode(Source source) {
        byte tag = source.getByte();
        return switch (tag) {
            case NULL -> null;
            case BOOLEAN -> source.getBoolean();
            case INTEGER -> source.getInt();
            case LONG -> source.getLong();
            case DOUBLE -> source.getDouble();
            case STRING -> source.getString();
            case BYTES -> source.getByteArray();
            case OBJECT -> new ObjectId(source.getLong());
            default -> throw new MalformedInputException("unknown value tag " + tag);
        };
    }

    static Object decodeKey(Source source) {
        Object key = decode(source);
        if (!(key instanceof String || key instanceof Integer || key instanceof Long)) {
            throw new MalformedInputException("a collection key cannot be "
                    + (key == null ? "null" : key.getClass().getSimpleName()));
        }
        return key;
    }

    /** Resolves a decoded value's object reference. */
    static Object resolve(Object decoded, TypeHandler.Resolver objects) {
        if (!(decoded instanceof ObjectId id)) {
            return decoded;
        }
        StateObject object = objects.resolve(id.oid());
        if (object == null) {
            throw new MalformedInputException("a collection value refers to absent object " + id.oid());
        }
        return object;
    }

    /** Byte arrays are copied in and out, so a caller can never change a value behind the digest's back. */
    static Object copy(Object value) {
        return value instanceof byte[] bytes ? bytes.clone() : value;
    }

    /** An object reference read from a delta, before the object exists. */
    record ObjectId(long oid) {}
}
