package io.eve.mixer.experiment;

import io.eve.mixer.ConflictKeys;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The pairs of requests of one batch that conflict under their keys, found key by key: for each key, every
 * two writers, and every writer with every reader. A pair that shares several keys is visited once per
 * shared key, and the order of visits follows hash order, so a visitor must give the same answer for a pair
 * each time and must not depend on the order. Costs the sum over keys of (writers x users of that key).
 *
 * <p>Confined to one call; not thread-safe.
 */
final class ConflictingPairs {
    private final List<Users> usersByKey;

    private ConflictingPairs(List<Users> usersByKey) {
        this.usersByKey = usersByKey;
    }

    static ConflictingPairs of(List<ConflictKeys> requests) {
        Map<Object, Users> byKey = new HashMap<>();
        for (int position = 0; position < requests.size(); position++) {
            ConflictKeys keys = requests.get(position);
            for (Object key : keys.writes()) {
                byKey.computeIfAbsent(key, unused -> new Users()).writers.add(position);
            }
            for (Object key : keys.reads()) {
                if (!keys.writes().contains(key)) {
                    byKey.computeIfAbsent(key, unused -> new Users()).readers.add(position);
                }
            }
        }
        return new ConflictingPairs(new ArrayList<>(byKey.values()));
    }

    void forEach(PairVisitor visitor) {
        for (Users users : usersByKey) {
            users.forEachPair(visitor);
        }
    }

    private static final class Users {
        final List<Integer> writers = new ArrayList<>();
        final List<Integer> readers = new ArrayList<>();

        void forEachPair(PairVisitor visitor) {
            for (int w = 0; w < writers.size(); w++) {
                int writer = writers.get(w);
                for (int other = w + 1; other < writers.size(); other++) {
                    visitor.visit(writer, writers.get(other));
                }
                for (int reader : readers) {
                    visitor.visit(Math.min(writer, reader), Math.max(writer, reader));
                }
            }
        }
    }
}
