package io.eve.merkle;

/**
 * State that the execution stage can seal, roll back and transfer (DESIGN.md section 4).
 *
 * <p>Versions are batch sequence numbers. A new state holds version {@link #NOTHING} (empty); the
 * application builds its initial state and seals it as version 0. Batch {@code n} then runs on top of the
 * state sealed at {@code n - 1}, and {@link #seal(long)} ends it and returns the Merkle root. Several
 * sealed versions may be tentative at once (pipelining): every version above the last stable one can
 * still be rolled back.
 *
 * <p>Threads: requests of one batch write state concurrently from the executor threads; {@code seal},
 * {@code rollbackTo}, {@code markStable}, {@code deltaSince} and {@code apply} are called by one thread
 * (the execution stage) while no request is running.
 */
public interface VersionedState {
    /** The version of a state that holds nothing: before the initial seal, and the base of a full transfer. */
    long NOTHING = -1L;

    /**
     * Ends batch {@code seq} and returns the root digest of the state after it. Equal logical state gives
     * an equal digest on every replica, whatever the interleaving of the batch's threads was.
     *
     * @throws StateException if {@code seq} is not the next version, or (in debug mode) if the
     *     incremental root differs from a full rehash, naming the object that changed without being
     *     marked modified
     */
    Digest seal(long seq);

    /**
     * Restores exactly the state sealed at {@code seq}, discarding every later version and the
     * unsealed writes of the batch in progress.
     *
     * @throws StateException if {@code seq} is below the last stable version or above the last sealed one
     */
    void rollbackTo(long seq);

    /** Version {@code seq} is committed; it and the versions before it can no longer be rolled back. */
    void markStable(long seq);

    /**
     * Whether anything was written since the last seal or rollback. The execution stage runs read-only
     * requests (Eve §6) between batches and checks that they left this false.
     */
    boolean hasUnsealedWrites();

    /** The last sealed version ({@link #NOTHING} before the initial seal). */
    long sealedSeq();

    /** The last stable version. */
    long stableSeq();

    /** The root digest sealed at {@code seq}, for any version from the stable one to the last sealed. */
    Digest rootAt(long seq);

    /**
     * What changed between version {@code sinceSeq} and the last sealed version, for incremental state
     * transfer; {@code deltaSince(NOTHING)} is a full transfer for a replica that has nothing. The size of the delta is proportional to what changed, not to the size of the state.
     */
    StateDelta deltaSince(long sinceSeq);

    /**
     * Applies a delta produced by another replica's {@link #deltaSince(long)}. The state must be at the
     * delta's base version with no later tentative versions and no unsealed writes. The delta must lead
     * to {@code expectedSeq}, the version the verifiers agreed on (the root does not cover the version
     * number), and the result, sealed at that version, must have {@code expectedRoot}; otherwise, or if
     * the delta is malformed, the state is left exactly as it was and the result says why.
     */
    ApplyResult apply(StateDelta delta, long expectedSeq, Digest expectedRoot);
}
