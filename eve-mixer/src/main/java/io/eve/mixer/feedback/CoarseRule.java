package io.eve.mixer.feedback;

import io.eve.mixer.ConflictKeys;
import java.util.HashSet;
import java.util.Set;

/**
 * What one rollback taught: from batch {@code fromSeq} to batch {@code untilSeq} inclusive, a request that
 * reads or writes any of {@code suspects} also writes this rule's {@link CoarseKey}.
 *
 * <p>Immutable and thread-safe.
 */
record CoarseRule(long fromSeq, long untilSeq, Set<Object> suspects) {
    CoarseRule {
        suspects = Set.copyOf(suspects);
    }

    CoarseKey key() {
        return new CoarseKey(fromSeq);
    }

    boolean activeAt(long seq) {
        return fromSeq <= seq && seq <= untilSeq;
    }

    boolean touchedBy(ConflictKeys keys) {
        return anySuspect(keys.writes()) || anySuspect(keys.reads());
    }

    CoarseRule widenedBy(Set<Object> moreSuspects) {
        Set<Object> all = new HashSet<>(suspects);
        all.addAll(moreSuspects);
        return new CoarseRule(fromSeq, untilSeq, all);
    }

    private boolean anySuspect(Set<?> keys) {
        for (Object key : keys) {
            if (suspects.contains(key)) {
                return true;
            }
        }
        return false;
    }
}
