package io.eve.merkle.graph;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A set that is replicated state without any {@code modify} call, with the guarantees of
 * {@link ReplicatedMap}: digest and iteration order depend only on the elements. Elements are
 * {@code String}, {@code Integer} or {@code Long}. Thread-safe.
 *
 * @param <E> elements
 */
@SuppressWarnings("unchecked")
public final class ReplicatedSet<E> extends TrieCollection {
    static final String NAME = "eve.Set";

    public ReplicatedSet() {}

    /** Adds {@code element}; returns whether it was absent. */
    public boolean add(E element) {
        return putEntry(element, Boolean.TRUE) == null;
    }

    /** Removes {@code element}; returns whether it was present. */
    public boolean remove(E element) {
        return removeEntry(element) != null;
    }

    public boolean contains(E element) {
        return hasEntry(element);
    }

    /** The elements in canonical order. */
    public List<E> elements() {
        List<E> elements = new ArrayList<>();
        for (Map.Entry<Object, Object> entry : entries()) {
            elements.add((E) entry.getKey());
        }
        return elements;
    }

    @Override
    public String toString() {
        return "ReplicatedSet[" + size() + " elements]";
    }
}
