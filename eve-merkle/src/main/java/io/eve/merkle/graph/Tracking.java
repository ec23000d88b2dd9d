package io.eve.merkle.graph;

/**
 * The write barrier that enhanced code calls before every write to a replicated field (docs/state.md,
 * "Tracked writes"): it does what {@link ObjectGraphState#modify} does, and returns at once when the
 * request running on this thread already saved the object. Not for application code: call
 * {@code modify} instead. Safe from any thread, like {@code modify}.
 */
public final class Tracking {
    /** Codecs of objects no state has placed yet: only a failed request's undo needs their pre-image. */
    private static final ClassValue<FieldCodec> UNPLACED_CODECS = new ClassValue<>() {
        @Override
        protected FieldCodec computeValue(Class<?> type) {
            return FieldCodec.of(type, true);
        }
    };

    private Tracking() {}

    /**
     * Called by enhanced code just before it writes a replicated field of {@code object}.
     *
     * @param object the object about to be written
     */
    public static void beforeWrite(StateObject object) {
        // The request stamp is set by the first save in a request (and at construction), after the
        // batch's pre-image was taken: equal means everything modify would do is done.
        long request = RequestLog.currentRequest();
        if (request == 0 || object.request != request) {
            track(object);
        }
    }

    private static void track(StateObject object) {
        ObjectGraphState owner = object.owner != null ? object.owner : object.lastOwner;
        if (owner != null) {
            owner.modify(object);
            return;
        }
        RequestLog request = RequestLog.current();
        if (request.needsPreImage(object)) {
            FieldCodec codec = UNPLACED_CODECS.get(object.getClass());
            request.recordObject(object, codec, codec.capture(object));
        }
    }
}
