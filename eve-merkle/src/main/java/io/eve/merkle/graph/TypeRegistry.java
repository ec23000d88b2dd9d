package io.eve.merkle.graph;

import io.eve.merkle.StateException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Maps classes to their {@link TypeHandler}s (through a {@link ClassValue}, so a lookup on the hot path
 * is a field read) and stable names back to handlers for state transfer. Thread-safe.
 */
final class TypeRegistry {
    private final Map<String, TypeHandler> byName = new ConcurrentHashMap<>();
    private final Map<Class<?>, TypeHandler> builtIns;
    private final ClassValue<TypeHandler> byClass = new ClassValue<>() {
        @Override
        protected TypeHandler computeValue(Class<?> type) {
            TypeHandler builtIn = builtIns.get(type);
            TypeHandler handler = builtIn != null ? builtIn : FieldCodec.of(type);
            TypeHandler previous = byName.putIfAbsent(handler.name(), handler);
            if (previous != null && previous != handler) {
                throw new StateException("two state classes share the stable name " + handler.name() + ": "
                        + type.getName() + " and another; set @Replicated(name = ...) to tell them apart");
            }
            return handler;
        }
    };

    TypeRegistry(Map<Class<?>, TypeHandler> builtIns) {
        this.builtIns = Map.copyOf(builtIns);
        builtIns.values().forEach(handler -> byName.put(handler.name(), handler));
    }

    /** Validates and registers {@code type}; the exception names class, field and type on failure. */
    TypeHandler register(Class<?> type) {
        return byClass.get(type);
    }

    TypeHandler handlerFor(StateObject object) {
        return byClass.get(object.getClass());
    }

    /** The handler for a stable name, or {@code null} if no class of that name was registered. */
    TypeHandler handlerNamed(String name) {
        return byName.get(name);
    }
}
