package io.eve.verify.diagnosis;

import io.eve.merkle.ObjectDigest;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The objects on which two replicas' sequential runs of batch {@code seq} ended differently. Both runs
 * started from the same agreed version and each side lists the objects its run changed (docs/state.md,
 * "Diagnosing a batch that still differs"), so an object differs exactly when the two sides list it with
 * different digests, or only one side lists it (the other left it as it was agreed).
 *
 * @param seq the batch
 * @param differences the objects that differ, in id order
 * @param comparedUpTo present when a side left objects out of its report: only ids up to this one were
 *     compared
 */
public record Divergence(long seq, List<Difference> differences, OptionalLong comparedUpTo) {
    /** How many objects a description names; the rest are counted. */
    public static final int NAMED = 20;

    public Divergence {
        differences = List.copyOf(differences);
        Objects.requireNonNull(comparedUpTo, "comparedUpTo");
    }

    /** One object that differs: what each side's run left in it, empty for a side that did not change it. */
    public record Difference(long id, Optional<ObjectDigest> here, Optional<ObjectDigest> there) {
        public Difference {
            Objects.requireNonNull(here, "here");
            Objects.requireNonNull(there, "there");
        }

        /**
         * "object 7 (shop.Account, com.example.Account here; unchanged at node 1)", for {@code hereName} "here"
         * and {@code thereName} "at node 1".
         */
        public String describe(String hereName, String thereName) {
            if (id == ObjectDigest.TABLE_ID) {
                return "the roots table and id allocator (id 0)";
            }
            return "object " + id + " (" + side(here) + " " + hereName + "; " + side(there) + " " + thereName + ")";
        }

        private static String side(Optional<ObjectDigest> entry) {
            return entry.map(e -> e.stableName() + ", " + e.className() + (e.freed() ? ", freed" : ""))
                    .orElse("unchanged");
        }
    }

    /**
     * Compares two replicas' reports on batch {@code seq}: each the objects its run changed in strictly
     * increasing id order, and how many it left out after the last listed (then ids above the lower of the
     * truncated sides' last ids are not compared).
     */
    public static Divergence compare(
            long seq, List<ObjectDigest> here, int hereOmitted, List<ObjectDigest> there, int thereOmitted) {
        long limit = Long.MAX_VALUE;
        if (hereOmitted > 0) {
            limit = Math.min(
                    limit, here.isEmpty() ? -1 : here.get(here.size() - 1).id());
        }
        if (thereOmitted > 0) {
            limit = Math.min(
                    limit, there.isEmpty() ? -1 : there.get(there.size() - 1).id());
        }
        List<Difference> differences = new ArrayList<>();
        Iterator<ObjectDigest> a = here.iterator();
        Iterator<ObjectDigest> b = there.iterator();
        ObjectDigest x = next(a, limit);
        ObjectDigest y = next(b, limit);
        while (x != null || y != null) {
            if (y == null || (x != null && x.id() < y.id())) {
                differences.add(new Difference(x.id(), Optional.of(x), Optional.empty()));
                x = next(a, limit);
            } else if (x == null || y.id() < x.id()) {
                differences.add(new Difference(y.id(), Optional.empty(), Optional.of(y)));
                y = next(b, limit);
            } else {
                if (!x.digest().equals(y.digest())) {
                    differences.add(new Difference(x.id(), Optional.of(x), Optional.of(y)));
                }
                x = next(a, limit);
                y = next(b, limit);
            }
        }
        return new Divergence(
                seq, differences, limit == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(limit));
    }

    private static ObjectDigest next(Iterator<ObjectDigest> entries, long limit) {
        if (!entries.hasNext()) {
            return null;
        }
        ObjectDigest entry = entries.next();
        return entry.id() <= limit ? entry : null;
    }

    /**
     * For the WARN line: the first {@link #NAMED} objects that differ and a count of the rest, or that none
     * does, and how far the comparison went if a report was cut. {@code hereName} and {@code thereName} say
     * where each side is ("here", "at node 1").
     */
    public String describe(String hereName, String thereName) {
        StringBuilder text = new StringBuilder();
        if (differences.isEmpty()) {
            text.append("no object differs ").append(hereName).append(" and ").append(thereName);
        } else {
            text.append(differences.size() == 1 ? "the object that differs: " : "the objects that differ: ");
            for (int i = 0; i < Math.min(NAMED, differences.size()); i++) {
                text.append(i == 0 ? "" : ", ").append(differences.get(i).describe(hereName, thereName));
            }
            if (differences.size() > NAMED) {
                text.append(" and ").append(differences.size() - NAMED).append(" more");
            }
        }
        comparedUpTo.ifPresent(id ->
                text.append(" (compared up to id ").append(id).append(": a report left out the objects above it)"));
        return text.toString();
    }
}
