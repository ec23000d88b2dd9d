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

    private Object value;

    public ReplicatedCell() {}

    public ReplicatedCell(V initial) {
        CanonicalValues.checkValue(initial);
        this.value = CanonicalValues.copy(initial);
    }

    public synchronized V get() {
        return (V) CanonicalValues.copy(value);
    }

    /** Replaces the value; returns the previous one. */
    public synchronized V set(V newValue) {
        CanonicalValues.checkValue(newValue);
        ObjectGraphState state = owner;
        if (state != null) {
            state.modify(this);
        }
        Object previous = value;
        value = CanonicalValues.copy(newValue);
        return (V) previous;
    }

    synchronized Object rawValue() {
        return value;
    }

    synchronized void rawSet(Object newValue) {
        value = newValue;
    }

    @Override
    public String toString() {
        return "ReplicatedCell[" + get() + "]";
    }
}
