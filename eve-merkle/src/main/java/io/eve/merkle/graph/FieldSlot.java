package io.eve.merkle.graph;

import io.eve.merkle.codec.MalformedInputException;
import io.eve.merkle.codec.Sink;
import io.eve.merkle.codec.Source;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * One state field of a {@link Replicated} class: its kind and method handles adapted once, at
 * registration, to exact erased signatures, so every later access is an {@code invokeExact} with no
 * reflection and no per-call type adaptation. Immutable and thread-safe.
 */
final class FieldSlot {
    /** Encodes a reference whose target is not placed: only a forgotten {@code modify} produces it. */
    static final long UNPLACED = -1L;

    private final String name;
    private final FieldKind kind;
    private final Class<?> type;
    private final MethodHandle getter;
    private final MethodHandle setter;

    private FieldSlot(Field field, FieldKind kind, MethodHandle getter, MethodHandle setter) {
        this.name = field.getName();
        this.kind = kind;
        this.type = field.getType();
        this.getter = getter;
        this.setter = setter;
    }

    static FieldSlot of(Field field, FieldKind kind) {
        try {
            field.setAccessible(true);
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            Class<?> erased = field.getType().isPrimitive() ? field.getType() : Object.class;
            MethodHandle getter = lookup.unreflectGetter(field).asType(MethodType.methodType(erased, Object.class));
            MethodHandle setter = lookup.unreflectSetter(field)
                    .asType(MethodType.methodType(
                            void.class, Object.class, Object.class.equals(erased) ? Object.class : erased));
            return new FieldSlot(field, kind, getter, setter);
        } catch (IllegalAccessException | RuntimeException e) {
            throw new io.eve.merkle.StateException(
                    "cannot access field " + field.getDeclaringClass().getName() + "." + field.getName()
                            + "; if the class is in a named module, open its package to io.eve.merkle",
                    e);
        }
    }

    String name() {
        return name;
    }

    FieldKind kind() {
        return kind;
    }

    void encode(Object object, Sink sink) {
        try {
            switch (kind) {
                case BOOLEAN -> sink.putBoolean((boolean) getter.invokeExact(object));
                case BYTE -> sink.putByte((byte) getter.invokeExact(object));
                case SHORT -> sink.putShort((short) getter.invokeExact(object));
                case CHAR -> sink.putChar((char) getter.invokeExact(object));
                case INT -> sink.putInt((int) getter.invokeExact(object));
                case LONG -> sink.putLong((long) getter.invokeExact(object));
                case FLOAT -> sink.putFloat((float) getter.invokeExact(object));
                case DOUBLE -> sink.putDouble((double) getter.invokeExact(object));
                default -> encodeObject((Object) getter.invokeExact(object), sink);
            }
        } catch (Throwable e) {
            throw rethrow(e);
        }
    }

    private void encodeObject(Object value, Sink sink) {
        if (kind == FieldKind.REFERENCE) {
            sink.putLong(idOf((StateObject) value));
            return;
        }
        sink.putBoolean(value != null);
        if (value == null) {
            return;
        }
        switch (kind) {
            case STRING -> sink.putString((String) value);
            case BYTE_ARRAY -> sink.putByteArray((byte[]) value);
            case BYTES -> sink.putByteArray(((ImmutableBytes) value).array());
            case INT_ARRAY -> {
                int[] ints = (int[]) value;
                sink.putInt(ints.length);
                for (int v : ints) {
                    sink.putInt(v);
                }
            }
            case LONG_ARRAY -> {
                long[] longs = (long[]) value;
                sink.putInt(longs.length);
                for (long v : longs) {
                    sink.putLong(v);
                }
            }
            case ENUM -> sink.putString(((Enum<?>) value).name());
            case REFERENCE_ARRAY -> {
                StateObject[] refs = (StateObject[]) value;
                sink.putInt(refs.length);
                for (StateObject ref : refs) {
                    sink.putLong(idOf(ref));
                }
            }
            default -> throw new IllegalStateException("not an object kind: " + kind);
        }
    }

    static long idOf(StateObject ref) {
        if (ref == null) {
            return 0;
        }
        return ref.oid == 0 ? UNPLACED : ref.oid;
    }

    /** The field's value, arrays copied. */
    Object capture(Object object) {
        Object value = get(object);
        return kind.isArray() && value != null ? cloneArray(value) : value;
    }

    /** Puts a captured value back (final fields too: their setter was unlocked at registration). */
    void restore(Object object, Object value) {
        // A copy: the same pre-image may be restored again (a failed request's, then the batch's).
        set(object, kind.isArray() && value != null ? cloneArray(value) : value);
    }

    void forEachReference(Object object, Consumer<StateObject> action) {
        if (kind == FieldKind.REFERENCE) {
            StateObject ref = (StateObject) get(object);
            if (ref != null) {
                action.accept(ref);
            }
        } else if (kind == FieldKind.REFERENCE_ARRAY) {
            StateObject[] refs = (StateObject[]) get(object);
            if (refs != null) {
                for (StateObject ref : refs) {
                    if (ref != null) {
                        action.accept(ref);
                    }
                }
            }
        }
    }

    /** Reads a value encoded by {@link #encode}; references stay ids (a {@link RefIds}) until installed. */
    Object read(Source source) {
        return switch (kind) {
            case BOOLEAN -> source.getBoolean();
            case BYTE -> source.getByte();
            case SHORT -> source.getShort();
            case CHAR -> source.getChar();
            case INT -> source.getInt();
            case LONG -> source.getLong();
            case FLOAT -> source.getFloat();
            case DOUBLE -> source.getDouble();
            case REFERENCE -> new RefIds(new long[] {source.getLong()}, false);
            default -> source.getBoolean() ? readPresent(source) : null;
        };
    }

    private Object readPresent(Source source) {
        switch (kind) {
            case STRING:
                return source.getString();
            case BYTE_ARRAY:
                return source.getByteArray();
            case BYTES:
                return ImmutableBytes.adopt(source.getByteArray());
            case INT_ARRAY: {
                int[] ints = new int[source.getCount(Integer.BYTES, "int array length")];
                for (int i = 0; i < ints.length; i++) {
                    ints[i] = source.getInt();
                }
                return ints;
            }
            case LONG_ARRAY:
                return readLongs(source);
            case ENUM:
                return enumConstant(source.getString());
            case REFERENCE_ARRAY:
                return new RefIds(readLongs(source), true);
            default:
                throw new IllegalStateException("not an object kind: " + kind);
        }
    }

    private static long[] readLongs(Source source) {
        long[] longs = new long[source.getCount(Long.BYTES, "long array length")];
        for (int i = 0; i < longs.length; i++) {
            longs[i] = source.getLong();
        }
        return longs;
    }

    private Object enumConstant(String constant) {
        for (Object candidate : type.getEnumConstants()) {
            if (((Enum<?>) candidate).name().equals(constant)) {
                return candidate;
            }
        }
        throw new MalformedInputException("enum " + type.getName() + " has no constant " + constant);
    }

    /** Writes a value produced by {@link #read}, resolving reference ids. */
    void install(Object object, Object value, TypeHandler.Resolver objects) {
        set(object, resolve(value, objects));
    }

    /** A value produced by {@link #read} with its reference ids resolved. */
    Object resolve(Object value, TypeHandler.Resolver objects) {
        if (value instanceof RefIds ids) {
            return ids.array ? resolveArray(ids.ids, objects) : resolveOne(ids.ids[0], objects, type);
        }
        return value;
    }

    /** Whether the field of {@code object} holds {@code value} (a captured or resolved one). */
    boolean holds(Object object, Object value) {
        Object now = get(object);
        if (kind.isArray() && now != null && value != null) {
            return now instanceof Object[] refs
                    ? Arrays.equals(refs, (Object[]) value)
                    : java.util.Objects.deepEquals(new Object[] {now}, new Object[] {value});
        }
        return kind == FieldKind.REFERENCE || kind == FieldKind.ENUM
                ? now == value
                : java.util.Objects.equals(now, value);
    }

    private Object resolveArray(long[] ids, TypeHandler.Resolver objects) {
        Class<?> component = type.getComponentType();
        Object array = java.lang.reflect.Array.newInstance(component, ids.length);
        for (int i = 0; i < ids.length; i++) {
            java.lang.reflect.Array.set(array, i, resolveOne(ids[i], objects, component));
        }
        return array;
    }

    private StateObject resolveOne(long id, TypeHandler.Resolver objects, Class<?> expected) {
        if (id == 0) {
            return null;
        }
        StateObject target = objects.resolve(id);
        if (target == null || !expected.isInstance(target)) {
            throw new MalformedInputException("field " + name + " refers to object " + id + " which is "
                    + (target == null ? "absent" : "a " + target.getClass().getName()) + ", expected a "
                    + expected.getName());
        }
        return target;
    }

    private Object get(Object object) {
        try {
            if (!type.isPrimitive()) {
                return (Object) getter.invokeExact(object);
            }
            return getter.invoke(object);
        } catch (Throwable e) {
            throw rethrow(e);
        }
    }

    private void set(Object object, Object value) {
        try {
            if (!type.isPrimitive()) {
                setter.invokeExact(object, value);
            } else {
                setter.invoke(object, value);
            }
        } catch (Throwable e) {
            throw rethrow(e);
        }
    }

    private static Object cloneArray(Object array) {
        if (array instanceof byte[] bytes) {
            return bytes.clone();
        }
        if (array instanceof int[] ints) {
            return ints.clone();
        }
        if (array instanceof long[] longs) {
            return longs.clone();
        }
        return ((Object[]) array).clone();
    }

    private static RuntimeException rethrow(Throwable e) {
        if (e instanceof RuntimeException runtime) {
            return runtime;
        }
        if (e instanceof Error error) {
            throw error;
        }
        return new IllegalStateException(e);
    }

    /** Reference ids read from a delta, resolved only once every object of the delta exists. */
    private record RefIds(long[] ids, boolean array) {}
}
