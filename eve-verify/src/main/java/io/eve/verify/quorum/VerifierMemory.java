package io.eve.verify.quorum;

import java.util.Objects;

/**
 * Where a {@link Verifier} keeps what it must remember across a crash (docs/quorum.md, "Durable verifiers"):
 * the highest view it took part in or left for, and its best certificate with the evidence that proves it.
 * The verifier saves a new record before any message that depends on it leaves, and holds those messages
 * until the owner reports the record durable ({@link Verifier#onDurable}).
 */
public interface VerifierMemory {
    /**
     * What a verifier remembers: the highest view it entered or sent a {@code ViewChange} for, and its best
     * certificate (or none). Opaque outside the package: a memory keeps it, it does not look inside.
     */
    final class Remembered {
        private final long view;
        private final Certificate best;

        Remembered(long view, Certificate best) {
            this.view = view;
            this.best = best;
        }

        /** The highest view the verifier entered or left for. */
        public long view() {
            return view;
        }

        Certificate best() {
            return best;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Remembered that && view == that.view && Objects.equals(best, that.best);
        }

        @Override
        public int hashCode() {
            return Objects.hash(view, best);
        }

        @Override
        public String toString() {
            return "Remembered[view=" + view + ", best=" + best + "]";
        }
    }

    /** What the last life of this verifier remembered, or null when it never saved anything. */
    Remembered load();

    /**
     * Makes {@code record} durable as version {@code version} (versions increase); once it is, the owner calls
     * {@link Verifier#onDurable} with that version on the verifier's thread. Records saved while an earlier one
     * is being written may be written together, the latest only.
     */
    void save(Remembered record, long version);
}
