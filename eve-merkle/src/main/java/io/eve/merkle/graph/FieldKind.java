package io.eve.merkle.graph;

import java.util.Map;

/**
 * The field types a {@link Replicated} class may declare, each with a fixed canonical encoding
 * (docs/state-format.md). Anything else is rejected at registration.
 */
enum FieldKind {
    BOOLEAN,
    BYTE,
    SHORT,
    CHAR,
    INT,
    LONG,
    FLOAT,
    DOUBLE,
    STRING,
    BYTE_ARRAY,
    /** {@link ImmutableBytes}: encoded like {@code BYTE_ARRAY}, but trackable (it cannot change in place). */
    BYTES,
    INT_ARRAY,
    LONG_ARRAY,
    ENUM,
    REFERENCE,
    REFERENCE_ARRAY;

    private static final Map<Class<?>, FieldKind> BY_TYPE = Map.ofEntries(
            Map.entry(boolean.class, BOOLEAN),
            Map.entry(byte.class, BYTE),
            Map.entry(short.class, SHORT),
            Map.entry(char.class, CHAR),
            Map.entry(int.class, INT),
            Map.entry(long.class, LONG),
            Map.entry(float.class, FLOAT),
            Map.entry(double.class, DOUBLE),
            Map.entry(String.class, STRING),
            Map.entry(byte[].class, BYTE_ARRAY),
            Map.entry(ImmutableBytes.class, BYTES),
            Map.entry(int[].class, INT_ARRAY),
            Map.entry(long[].class, LONG_ARRAY));

    /** The kind for a declared field type, or {@code null} if the type is not supported. */
    static FieldKind of(Class<?> type) {
        FieldKind kind = BY_TYPE.get(type);
        if (kind != null) {
            return kind;
        }
        if (type.isEnum()) {
            return ENUM;
        }
        if (StateObject.class.isAssignableFrom(type)) {
            return REFERENCE;
        }
        if (type.isArray() && StateObject.class.isAssignableFrom(type.getComponentType())) {
            return REFERENCE_ARRAY;
        }
        return null;
    }

    boolean isArray() {
        return this == BYTE_ARRAY || this == INT_ARRAY || this == LONG_ARRAY || this == REFERENCE_ARRAY;
    }
}
