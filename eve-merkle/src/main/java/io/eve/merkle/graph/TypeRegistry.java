package io.eve.merkle.graph;

import io.eve.merkle.StateException;
import io.eve.merkle.codec.BufferSink;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Maps classes to their {@link TypeHandler}s (through a {@link ClassValue}, so a lookup on the hot path
 * is a field read) and stable names back to handlers for state transfer. Thread-safe.
 */
final class TypeRegistry {
    private final Map<String, TypeHandler> byName = new ConcurrentHashMap<>();
    private final Map<String, Class<?>> classByName = new ConcurrentHashMap<>();
    private final Map<Class<?>, TypeHandler> builtIns;
    /** Whether classes that were not enhanced, and raw arrays, are accepted (the application calls modify). */
    private final boolean manualTracking;

    private final ClassValue<TypeHandler> byClass = new ClassValue<>() {
        @Override
        protected TypeHandler computeValue(Class<?> type) {
            TypeHandler builtIn = builtIns.get(type);
            TypeHandler handler = builtIn != null ? builtIn : FieldCodec.of(type, manualTracking);
            Class<?> previous = classByName.putIfAbsent(handler.name(), type);
            if (previous != null && previous != type) {
                throw new StateException("two state classes share the stable name " + handler.name() + ": "
                        + previous.getName() + " and " + type.getName()
                        + "; set @Replicated(name = ...) to tell them apart");
            }
            byName.putIfAbsent(handler.name(), handler);
            return handler;
        }
    };

    /**
     * The first bytes of every leaf encoding of a class, 0x00 and the stable name (see {@link Sealer}),
     * encoded once: the name is the same for every object, so it need not be re-encoded char by char.
     */
    private final ClassValue<byte[]> leafHeaders = new ClassValue<>() {
        @Override
        protected byte[] computeValue(Class<?> type) {
            BufferSink header = new BufferSink(64);
            header.putByte(0x00);
            header.putString(byClass.get(type).name());
            return header.toByteArray();
        }
    };

    TypeRegistry(Map<Class<?>, TypeHandler> builtIns, boolean manualTracking) {
        this.builtIns = Map.copyOf(builtIns);
        this.manualTracking = manualTracking;
        builtIns.forEach((type, handler) -> {
            byName.put(handler.name(), handler);
            classByName.put(handler.name(), type);
        });
    }

    /** Validates and registers {@code type}; the exception names class, field and type on failure. */
    TypeHandler register(Class<?> type) {
        return byClass.get(type);
    }

    TypeHandler handlerFor(StateObject object) {
        return byClass.get(object.getClass());
    }

    /** The encoded leaf header of {@code object}'s class: 0x00 and its handler's stable name. */
    byte[] leafHeaderFor(StateObject object) {
        return leafHeaders.get(object.getClass());
    }

    /** The handler for a stable name, or {@code null} if no class of that name was registered. */
    TypeHandler handlerNamed(String name) {
        return byName.get(name);
    }
}
