package io.eve.merkle.graph;

import io.eve.merkle.StateException;
import io.eve.merkle.codec.Sink;
import io.eve.merkle.codec.Source;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.function.Consumer;

/**
 * The {@link TypeHandler} of a {@link Replicated} class, built once when the class is registered.
 *
 * <p>Field order is fixed and independent of the JVM: superclass fields before subclass fields, and
 * within one class by field name. Immutable and thread-safe.
 */
final class FieldCodec implements TypeHandler {
    private final String name;
    private final FieldSlot[] slots;
    private final MethodHandle constructor;

    private FieldCodec(String name, FieldSlot[] slots, MethodHandle constructor) {
        this.name = name;
        this.slots = slots;
        this.constructor = constructor;
    }

    /**
     * Validates {@code type} and builds its codec; the exception names class, field and type. Unless
     * {@code manualTracking}, the class and its superclasses must have been enhanced and no field may be
     * a raw array, whose elements could be written without the write barrier.
     */
    static FieldCodec of(Class<?> type, boolean manualTracking) {
        Replicated annotation = type.getAnnotation(Replicated.class);
        if (annotation == null) {
            throw new StateException(type.getName() + " is not annotated @Replicated");
        }
        checkShape(type);
        if (!manualTracking) {
            checkEnhanced(type);
        }
        String name = annotation.name().isEmpty() ? type.getName() : annotation.name();
        return new FieldCodec(name, slotsOf(type, manualTracking), constructorOf(type));
    }

    private static void checkEnhanced(Class<?> type) {
        for (Class<?> c = type; c != StateObject.class; c = c.getSuperclass()) {
            if (!c.isAnnotationPresent(Enhanced.class)) {
                throw new StateException(c.getName() + (c == type ? "" : ", a superclass of " + type.getName())
                        + ", was not enhanced, so writes to its fields would not be tracked: add the eve-enhance"
                        + " build step to the module that compiles it (docs/state.md, \"Tracked writes\"), or"
                        + " build the state with manualTracking(true) and call modify before every write");
            }
        }
    }

    private static void checkShape(Class<?> type) {
        if (!StateObject.class.isAssignableFrom(type)) {
            throw new StateException(type.getName() + " must extend " + StateObject.class.getName());
        }
        if (type.isRecord() || Modifier.isAbstract(type.getModifiers()) || type.isInterface()) {
            throw new StateException(type.getName() + " must be a concrete class, not a record or abstract type");
        }
        if (type.isMemberClass() && !Modifier.isStatic(type.getModifiers())
                || type.isLocalClass()
                || type.isAnonymousClass()) {
            throw new StateException(type.getName() + " must be a top-level or static nested class");
        }
    }

    private static FieldSlot[] slotsOf(Class<?> type, boolean manualTracking) {
        Deque<Class<?>> hierarchy = new ArrayDeque<>();
        for (Class<?> c = type; c != StateObject.class; c = c.getSuperclass()) {
            hierarchy.push(c);
        }
        List<FieldSlot> slots = new ArrayList<>();
        for (Class<?> c : hierarchy) {
            Field[] fields = c.getDeclaredFields();
            Arrays.sort(fields, Comparator.comparing(Field::getName));
            for (Field field : fields) {
                int modifiers = field.getModifiers();
                if (Modifier.isStatic(modifiers)
                        || Modifier.isTransient(modifiers)
                        || field.isSynthetic()
                        || field.isAnnotationPresent(Exclude.class)) {
                    continue;
                }
                FieldKind kind = FieldKind.of(field.getType());
                if (kind == null) {
                    throw new StateException("field " + c.getName() + "." + field.getName() + " of " + type.getName()
                            + " has unsupported type " + field.getGenericType().getTypeName() + "; "
                            + Untracked.alternativeTo(field.getType())
                            + " (supported: primitives, String, enums, StateObject subclasses and the replicated"
                            + " collections and cell; mark context fields transient or @Exclude)");
                }
                if (kind.isArray() && !manualTracking) {
                    throw new StateException("field " + c.getName() + "." + field.getName() + " of " + type.getName()
                            + " is a raw array (" + field.getType().getSimpleName()
                            + "): writes to its elements cannot be tracked; "
                            + Untracked.alternativeTo(field.getType()));
                }
                slots.add(FieldSlot.of(field, kind));
            }
        }
        return slots.toArray(new FieldSlot[0]);
    }

    private static MethodHandle constructorOf(Class<?> type) {
        try {
            Constructor<?> constructor = type.getDeclaredConstructor();
            constructor.setAccessible(true);
            return MethodHandles.lookup()
                    .unreflectConstructor(constructor)
                    .asType(MethodType.methodType(StateObject.class));
        } catch (NoSuchMethodException e) {
            throw new StateException(
                    type.getName()
                            + " needs a no-argument constructor (any visibility) so state transfer can create instances",
                    e);
        } catch (IllegalAccessException | RuntimeException e) {
            throw new StateException("cannot access the constructor of " + type.getName(), e);
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void encode(StateObject object, Sink sink) {
        for (FieldSlot slot : slots) {
            slot.encode(object, sink);
        }
    }

    @Override
    public Object capture(StateObject object) {
        Object[] values = new Object[slots.length];
        for (int i = 0; i < slots.length; i++) {
            values[i] = slots[i].capture(object);
        }
        return values;
    }

    @Override
    public void restore(StateObject object, Object preImage) {
        Object[] values = (Object[]) preImage;
        for (int i = 0; i < slots.length; i++) {
            slots[i].restore(object, values[i]);
        }
    }

    @Override
    public void forEachReference(StateObject object, Consumer<StateObject> action) {
        for (FieldSlot slot : slots) {
            slot.forEachReference(object, action);
        }
    }

    @Override
    public void forEachNewReference(StateObject object, Consumer<StateObject> action) {
        forEachReference(object, action);
    }

    @Override
    public void afterSeal(StateObject object) {}

    @Override
    public boolean needsAfterSeal() {
        return false;
    }

    @Override
    public void writeDelta(StateObject object, long sinceSeq, boolean whole, Sink sink) {
        encode(object, sink);
    }

    @Override
    public PendingWrite readDelta(Source source, boolean whole) {
        Object[] values = new Object[slots.length];
        for (int i = 0; i < slots.length; i++) {
            values[i] = slots[i].read(source);
        }
        return (target, objects, epoch) -> {
            for (int i = 0; i < slots.length; i++) {
                slots[i].install(target, values[i], objects);
            }
        };
    }

    @Override
    public StateObject newInstance() {
        try {
            return (StateObject) constructor.invokeExact();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new StateException("the constructor of " + name + " failed", e);
        }
    }

    /**
     * Decodes an encoding made by {@link #encode} into a pre-image {@link #restore} accepts, resolving
     * references through {@code objects}.
     */
    Object[] decode(Source source, Resolver objects) {
        Object[] values = new Object[slots.length];
        for (int i = 0; i < slots.length; i++) {
            values[i] = slots[i].resolve(slots[i].read(source), objects);
        }
        return values;
    }

    /** The names of the fields of {@code object} that differ from {@code preImage}. */
    List<String> changedFields(StateObject object, Object[] preImage) {
        List<String> changed = new ArrayList<>();
        for (int i = 0; i < slots.length; i++) {
            if (!slots[i].holds(object, preImage[i])) {
                changed.add(slots[i].name());
            }
        }
        return changed;
    }

    /** Field names in encoding order, for error messages and documentation. */
    List<String> fieldNames() {
        return Arrays.stream(slots).map(FieldSlot::name).toList();
    }
}
