package io.eve.merkle.graph;

/**
 * One replicated value with no {@code modify} call to forget: a counter, a configuration string, a
 * pointer to a state object. Values are those of {@link ReplicatedMap}. Thread-safe.
 *
 * @param <V> the value's type
 */
@SuppressWarnings("unchecked")
public final class ReplicatedCell<V> extends StateObject {
    static final String NAME = "eve.Cell";

    /** A private lock, not the object's monitor (see TrieCollection). */
    private final Object lock = new Object();

    private Object value;

    public ReplicatedCell() {}

    public ReplicatedCell(V initial) {
        CanonicalValues.checkValue(initial);
        this.value = CanonicalValues.copy(initial);
    }

    public V get() {
        synchronized (lock) {
            return (V) CanonicalValues.copy(value);
        }
    }

    /** Replaces the value; returns the previous one. */
    public V set(V newValue) {
        CanonicalValues.checkValue(newValue);
        ObjectGraphState state = owner != null ? owner : lastOwner;
        if (state != null) {
            state.modify(this);
        } else {
            // A cell created by an earlier request of the batch: no state to ask, the request log is the thread's.
            RequestLog request = RequestLog.current();
            if (request.needsPreImage(this)) {
                request.recordObject(this, CellHandler.INSTANCE, rawValue());
            }
        }
        synchronized (lock) {
            Object previous = value;
            value = CanonicalValues.copy(newValue);
            return (V) previous;
        }
    }

    Object rawValue() {
        synchronized (lock) {
            return value;
        }
    }

    void rawSet(Object newValue) {
        synchronized (lock) {
            value = newValue;
        }
    }

    @Override
    public String toString() {
        return "ReplicatedCell[" + get() + "]";
    }
}
