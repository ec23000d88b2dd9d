package io.eve.merkle.graph;

import io.eve.merkle.codec.Sink;
import io.eve.merkle.codec.Source;
import java.util.function.Consumer;

/**
 * Everything the engine needs to know about one class of state objects: its stable name, its canonical
 * encoding, how to save and restore a pre-image, which objects it references, and how it travels in a
 * delta. {@link FieldCodec} serves {@link Replicated} classes; the replicated collections bring their own.
 *
 * <p>Implementations are immutable and thread-safe; {@link #encode} and {@link #capture} run on executor
 * and hashing threads concurrently, for different objects.
 */
interface TypeHandler {
    String name();

    /** Feeds the object's content into {@code sink} (references as ids). */
    void encode(StateObject object, Sink sink);

    /** Copies what a rollback needs to restore the object as it is now. */
    Object capture(StateObject object);

    void restore(StateObject object, Object preImage);

    /** Every object referenced, for the mark phase of garbage collection. */
    void forEachReference(StateObject object, Consumer<StateObject> action);

    /**
     * The objects that may have been newly referenced in this batch, in a deterministic order, for the
     * placement scan (Eve §5.2.1). Plain objects report all their references.
     */
    void forEachNewReference(StateObject object, Consumer<StateObject> action);

    /** Called once the batch that dirtied the object is sealed. */
    void afterSeal(StateObject object);

    /** Whether {@link #afterSeal} does anything, so that the sealer can skip the call (and the object). */
    default boolean needsAfterSeal() {
        return true;
    }

    /**
     * Writes what changed in {@code object} since version {@code sinceSeq}, or all of it when
     * {@code whole}.
     */
    void writeDelta(StateObject object, long sinceSeq, boolean whole, Sink sink);

    /** Decodes what {@link #writeDelta} wrote, without touching any object yet. */
    PendingWrite readDelta(Source source, boolean whole);

    StateObject newInstance();

    /** A decoded change waiting for its references to be resolved. */
    interface PendingWrite {
        /**
         * Applies the change to {@code target}, resolving ids through {@code objects}.
         *
         * @throws io.eve.merkle.codec.MalformedInputException if an id does not resolve to an object of
         *     the right type
         */
        void install(StateObject target, Resolver objects, long epoch);
    }

    /** Finds the object with an id (0 is {@code null}). */
    @FunctionalInterface
    interface Resolver {
        StateObject resolve(long oid);
    }
}
