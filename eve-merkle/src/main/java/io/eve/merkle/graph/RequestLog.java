package io.eve.merkle.graph;

import io.eve.merkle.StateException;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the request running on one thread wrote, so that a request that throws can be undone without
 * touching the writes of the other requests of its batch (docs/state.md, "A failed request leaves no
 * trace"). Also carries the batch the thread writes for while batches overlap.
 *
 * <p>Each entry puts one thing back: an object's fields (its pre-image from before the request's first
 * write to it), one key of a collection, or one named root. Entries are undone newest first, so a key
 * written twice ends with its oldest value. The arrays are kept between requests: a request whose
 * writes need no new pre-image allocates nothing here.
 *
 * <p>Thread-confined: one instance per thread, used only by that thread.
 */
final class RequestLog {
    private static final ThreadLocal<RequestLog> CURRENT = ThreadLocal.withInitial(RequestLog::new);

    /** Request ids, unique in the JVM, so an object's stamp never matches a request that did not write it. */
    private static final AtomicLong REQUEST_IDS = new AtomicLong();

    private static final byte OBJECT = 0;
    private static final byte ENTRY = 1;
    private static final byte ROOT = 2;

    /** The batch the thread writes for (0: the batch in progress); see {@link ObjectGraphState#runAsBatch}. */
    long batch;

    /** The id of the open request, or 0 when none is open. */
    private long request;

    private byte[] kinds = new byte[16];
    private Object[] targets = new Object[16];
    private Object[] keys = new Object[16];
    private Object[] befores = new Object[16];
    private int size;

    private RequestLog() {}

    static RequestLog current() {
        return CURRENT.get();
    }

    /** The id of the request open on the calling thread, or 0. */
    static long currentRequest() {
        return CURRENT.get().request;
    }

    boolean isOpen() {
        return request != 0;
    }

    long request() {
        return request;
    }

    void open() {
        if (request != 0) {
            throw new StateException("a request is already open on this thread");
        }
        request = REQUEST_IDS.incrementAndGet();
    }

    /** Keeps the request's writes. */
    void close() {
        request = 0;
        clear();
    }

    /** Undoes the request's writes, newest first, and closes it. */
    void abort() {
        try {
            for (int i = size - 1; i >= 0; i--) {
                undo(i);
            }
        } finally {
            close();
        }
    }

    /**
     * Records {@code object}'s pre-image once per request: {@code true} if this call recorded it. The
     * stamp needs no synchronization: only the request that writes an object touches it (the mixer's
     * promise; collections, which requests share, record per key instead).
     */
    boolean needsPreImage(StateObject object) {
        if (request == 0 || object.request == request) {
            return false;
        }
        object.request = request;
        return true;
    }

    void recordObject(StateObject object, TypeHandler handler, Object preImage) {
        add(OBJECT, object, handler, preImage);
    }

    /** Key {@code key} of {@code collection} held {@code before} ({@code null}: absent). */
    void recordEntry(TrieCollection collection, Object key, Object before) {
        if (request != 0) {
            add(ENTRY, collection, key, before);
        }
    }

    void recordRoot(ObjectGraphState state, String name, StateObject before) {
        if (request != 0) {
            add(ROOT, state, name, before);
        }
    }

    private void add(byte kind, Object target, Object key, Object before) {
        if (size == kinds.length) {
            int capacity = size * 2;
            kinds = Arrays.copyOf(kinds, capacity);
            targets = Arrays.copyOf(targets, capacity);
            keys = Arrays.copyOf(keys, capacity);
            befores = Arrays.copyOf(befores, capacity);
        }
        kinds[size] = kind;
        targets[size] = target;
        keys[size] = key;
        befores[size] = before;
        size++;
    }

    private void undo(int i) {
        switch (kinds[i]) {
            case OBJECT -> ((TypeHandler) keys[i]).restore((StateObject) targets[i], befores[i]);
            case ENTRY -> ((TrieCollection) targets[i]).restoreEntry(keys[i], befores[i]);
            case ROOT -> ((ObjectGraphState) targets[i]).restoreRoot((String) keys[i], (StateObject) befores[i]);
            default -> throw new IllegalStateException("unknown undo entry kind " + kinds[i]);
        }
    }

    private void clear() {
        // Drop the references so a finished request's objects can be collected.
        Arrays.fill(targets, 0, size, null);
        Arrays.fill(keys, 0, size, null);
        Arrays.fill(befores, 0, size, null);
        size = 0;
    }
}
