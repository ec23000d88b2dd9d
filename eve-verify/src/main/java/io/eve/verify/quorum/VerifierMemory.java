package io.eve.verify.quorum;

/**
 * Where a {@link Verifier} keeps what it must remember across a crash (docs/quorum.md, "Durable verifiers"):
 * the highest view it took part in or left for, and its best certificate with the evidence that proves it.
 * The verifier saves a new record before any message that depends on it leaves, and holds those messages
 * until the owner reports the record durable ({@link Verifier#onDurable}).
 */
interface VerifierMemory {
    /**
     * What a verifier remembers.
     *
     * @param view the highest view it entered or sent a {@code ViewChange} for
     * @param best its best certificate, or null
     */
    record Remembered(long view, Certificate best) {}

    /** What the last life of this verifier remembered, or null when it never saved anything. */
    Remembered load();

    /**
     * Makes {@code record} durable as version {@code version} (versions increase); once it is, the owner calls
     * {@link Verifier#onDurable} with that version on the verifier's thread. Records saved while an earlier one
     * is being written may be written together, the latest only.
     */
    void save(Remembered record, long version);
}
