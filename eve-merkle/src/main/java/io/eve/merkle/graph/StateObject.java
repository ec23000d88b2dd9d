package io.eve.merkle.graph;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Base class of every replicated state object. It carries the framework's bookkeeping (the object's
 * dense id, its owner, the batch in which its pre-image was last saved); none of it is state, none of it
 * is hashed. Applications extend it with {@link Replicated} classes; the eve-enhance build step makes
 * every write to their fields save the pre-image that {@link ObjectGraphState#modify(StateObject)} saves
 * (docs/state.md, "Tracked writes").
 *
 * <p>The bookkeeping fields are package-private: only the framework touches them.
 */
public abstract class StateObject {
    static final VarHandle GENERATION;

    static {
        try {
            GENERATION = MethodHandles.lookup().findVarHandle(StateObject.class, "generation", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Dense id; 0 while the object is not (or no longer) part of the state. */
    long oid;

    /** The state this object is placed in, or {@code null}. */
    ObjectGraphState owner;

    /** The batch generation in which the pre-image was saved; written with a CAS by concurrent modifiers. */
    volatile long generation;

    /** The version in which the object was placed; a transfer since an earlier version ships it whole. */
    long placedSeq;

    /** The last request that saved this object's pre-image (see RequestLog); written by that request's thread only. */
    long request;

    /** The state that last freed this object, so writes to it can still be rolled back if it returns. */
    ObjectGraphState lastOwner;

    /**
     * Stamps the new object with the request creating it, so that request's own writes to it need no
     * pre-image (nothing references it outside the request if the request fails).
     */
    protected StateObject() {
        request = RequestLog.currentRequest();
    }

    /** Whether this object currently belongs to a state. */
    final boolean isPlaced() {
        return oid != 0;
    }
}
