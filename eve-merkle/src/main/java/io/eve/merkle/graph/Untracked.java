package io.eve.merkle.graph;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The replicated alternative to a field type whose writes could bypass tracking, for registration's
 * error messages (docs/state.md, "What a state class may hold").
 */
final class Untracked {
    private Untracked() {}

    static String alternativeTo(Class<?> type) {
        if (type == byte[].class) {
            return "use an ImmutableBytes field (replace the value to change it) or a ReplicatedCell<byte[]>";
        }
        if (type == int[].class || type == long[].class) {
            return "use a ReplicatedMap<Integer, " + (type == int[].class ? "Integer" : "Long") + "> keyed by index";
        }
        if (type.isArray()) {
            return "use a ReplicatedMap<Integer, " + type.getComponentType().getSimpleName()
                    + "> keyed by index, or a ReplicatedCell for one value";
        }
        if (Map.class.isAssignableFrom(type)) {
            return "use a ReplicatedMap (keys String, Integer or Long)";
        }
        if (Set.class.isAssignableFrom(type)) {
            return "use a ReplicatedSet";
        }
        if (List.class.isAssignableFrom(type) || Collection.class.isAssignableFrom(type)) {
            return "use a ReplicatedMap<Integer, V> keyed by position";
        }
        return "make it a @Replicated StateObject, hold it in a ReplicatedCell as an immutable value"
                + " (Boolean, Integer, Long, Double, String or byte[]), or mark it transient if it is not state";
    }
}
