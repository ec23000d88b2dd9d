package io.eve.enhance;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import net.bytebuddy.description.field.FieldDescription;
import net.bytebuddy.description.type.TypeDefinition;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.pool.TypePool;

/**
 * Decides which field writes are tracked: a field is replicated state when it is an instance field,
 * neither {@code transient}, synthetic nor {@code @Exclude}d, declared by a subclass of
 * {@code StateObject} outside the framework (the same rule {@code FieldCodec} applies at registration).
 * Caches its answers per owner and field. Thread-safe (the engine may transform in parallel).
 */
final class StateTypes {
    static final String STATE_OBJECT = "io.eve.merkle.graph.StateObject";
    static final String ENHANCED_DESCRIPTOR = "Lio/eve/merkle/graph/Enhanced;";
    static final String ENHANCED = "io.eve.merkle.graph.Enhanced";
    private static final String EXCLUDE = "io.eve.merkle.graph.Exclude";
    /** The framework's own state classes write their fields themselves (their writes are logged per key). */
    private static final Set<String> FRAMEWORK_TYPES = Set.of(
            STATE_OBJECT,
            "io.eve.merkle.graph.TrieCollection",
            "io.eve.merkle.graph.ReplicatedMap",
            "io.eve.merkle.graph.ReplicatedSet",
            "io.eve.merkle.graph.ReplicatedCell");

    private final Map<String, Boolean> tracked = new ConcurrentHashMap<>();

    /**
     * Whether a {@code PUTFIELD owner.name} writes replicated state. {@code owner} is the internal name
     * the instruction names, which may be a subclass of the declaring class.
     *
     * @throws IllegalStateException if the owner or one of its superclasses is not on the class path
     */
    boolean isTracked(TypePool pool, String owner, String name) {
        return tracked.computeIfAbsent(owner + '.' + name, key -> resolve(pool, owner.replace('/', '.'), name));
    }

    private static boolean resolve(TypePool pool, String owner, String name) {
        TypePool.Resolution resolution = pool.describe(owner);
        if (!resolution.isResolved()) {
            throw new IllegalStateException("cannot find class " + owner + " on the class path while looking for the"
                    + " field " + name + " it writes; give the build step the module's full class path");
        }
        for (TypeDefinition type = resolution.resolve(); type != null; type = type.getSuperClass()) {
            TypeDescription erased = type.asErasure();
            for (FieldDescription.InDefinedShape field : erased.getDeclaredFields()) {
                if (field.getName().equals(name)) {
                    return isStateField(erased, field);
                }
            }
        }
        return false;
    }

    private static boolean isStateField(TypeDescription declaring, FieldDescription.InDefinedShape field) {
        if (field.isStatic() || field.isTransient() || field.isSynthetic()) {
            return false;
        }
        if (field.getDeclaredAnnotations().stream()
                .anyMatch(a -> a.getAnnotationType().getName().equals(EXCLUDE))) {
            return false;
        }
        return !FRAMEWORK_TYPES.contains(declaring.getName()) && isStateObject(declaring);
    }

    /** Whether {@code type} extends {@code StateObject}. */
    static boolean isStateObject(TypeDescription type) {
        for (TypeDefinition t = type.getSuperClass(); t != null; t = t.getSuperClass()) {
            if (t.asErasure().getName().equals(STATE_OBJECT)) {
                return true;
            }
        }
        return false;
    }

    static boolean hasAnnotation(TypeDescription type, String annotation) {
        return type.getDeclaredAnnotations().stream()
                .anyMatch(a -> a.getAnnotationType().getName().equals(annotation));
    }
}
