package io.eve.mixer.conflict;

import io.eve.mixer.ConflictKeys;
import java.util.HashMap;
import java.util.Map;

/**
 * For each key seen so far in one batch, the last parallel batch (slot) that reads it and the last that
 * writes it. Eve §5.1 keeps one hash table of read keys and one of written keys per parallel batch; keeping
 * only the latest slot per key is enough because placement never goes back before it.
 *
 * <p>Confined to one {@code mix} call; not thread-safe. Only looked up, never iterated, so hash order
 * cannot leak into the result.
 */
final class KeyIndex {
    private static final int NONE = -1;

    private final Map<Object, Marks> marks;

    /** An index sized for {@code expectedKeys} keys, so that filling it never rehashes. */
    KeyIndex(int expectedKeys) {
        marks = new HashMap<>(capacityFor(expectedKeys));
    }

    private static int capacityFor(int keys) {
        return (int) Math.min(1L << 30, (long) Math.ceil(keys / 0.75));
    }

    /** The first slot a request with {@code keys} may use: just after its last conflicting predecessor. */
    int firstAllowedSlot(ConflictKeys keys) {
        int last = NONE;
        for (Object key : keys.writes()) {
            Marks seen = marks.get(key);
            if (seen != null) {
                last = Math.max(last, Math.max(seen.lastRead, seen.lastWrite));
            }
        }
        for (Object key : keys.reads()) {
            Marks seen = marks.get(key);
            if (seen != null) {
                last = Math.max(last, seen.lastWrite);
            }
        }
        return last + 1;
    }

    /** Notes that a request with {@code keys} was placed in {@code slot}. */
    void record(ConflictKeys keys, int slot) {
        for (Object key : keys.writes()) {
            Marks seen = marks.computeIfAbsent(key, unused -> new Marks());
            seen.lastWrite = Math.max(seen.lastWrite, slot);
        }
        for (Object key : keys.reads()) {
            Marks seen = marks.computeIfAbsent(key, unused -> new Marks());
            // Readers of one key may share or precede each other's slots, so keep the maximum.
            seen.lastRead = Math.max(seen.lastRead, slot);
        }
    }

    private static final class Marks {
        int lastRead = NONE;
        int lastWrite = NONE;
    }
}
