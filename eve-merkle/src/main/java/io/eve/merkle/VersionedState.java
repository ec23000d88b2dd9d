package io.eve.merkle;

import java.util.List;
import java.util.Optional;

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
     * The objects batch {@code seq} changed and their leaf digests after it, in id order, for naming the
     * objects on which two replicas diverged (docs/state.md, "Diagnosing a batch that still differs"): every
     * object whose leaf digest at {@code seq} differs from the one at {@code seq - 1} (written with a new
     * value, placed, or freed, which gives {@link Digest#ZERO}), and the roots table if it changed. An object
     * the batch did not change is absent, so two replicas that started the batch from the same version differ
     * exactly on the ids whose entries differ or that only one of them lists.
     *
     * @param seq a sealed version above the stable one
     * @return empty if this state does not keep per-object digests
     * @throws StateException if {@code seq} is stable or not sealed
     */
    default Optional<List<ObjectDigest>> objectDigests(long seq) {
        return Optional.empty();
    }

    /**
     * What changed between version {@code sinceSeq} and the last sealed version, for incremental state
     * transfer; {@code deltaSince(NOTHING)} is a full transfer for a replica that has nothing. The size of the delta is proportional to what changed, not to the size of the state.
     */
    default StateDelta deltaSince(long sinceSeq) {
        return deltaSince(sinceSeq, sealedSeq());
    }

    /**
     * What changed between version {@code sinceSeq} and version {@code targetSeq}, with the content
     * {@code targetSeq} had: applied to a state at {@code sinceSeq}, it gives exactly the state sealed at
     * {@code targetSeq}, whatever this state sealed after it. A replica serves the version the verifiers
     * agreed on this way, not a later one that nobody vouched for yet (docs/quorum.md, "State transfer").
     * The state is left exactly as it was; the delta's size follows what changed since {@code sinceSeq}, and
     * reading an older version costs about what the batches after it wrote.
     *
     * @param sinceSeq the receiver's version, {@link #NOTHING} for a full transfer; at most {@code targetSeq}
     * @param targetSeq a kept version: from the stable one to the last sealed
     * @throws StateException if {@code targetSeq} is not kept or {@code sinceSeq} is above it, or if the batch
     *     in progress has unsealed writes
     */
    StateDelta deltaSince(long sinceSeq, long targetSeq);

    /**
     * Applies a delta produced by another replica's {@link #deltaSince(long)}. The state must be at the
     * delta's base version with no later tentative versions and no unsealed writes. The delta must lead
     * to {@code expectedSeq}, the version the verifiers agreed on (the root does not cover the version
     * number), and the result, sealed at that version, must have {@code expectedRoot}; otherwise, or if
     * the delta is malformed, the state is left exactly as it was and the result says why.
     */
    ApplyResult apply(StateDelta delta, long expectedSeq, Digest expectedRoot);

    // One request's writes (docs/state.md, "A failed request leaves no trace"). The execution stage brackets
    // every request it executes: beginRequest, then endRequest if the request returned or abortRequest if it
    // threw. No default: a state that ignored abortRequest would keep a failed request's partial writes.

    /**
     * Opens the scope of one request on the calling thread (an executor thread): from now on the state
     * records what is needed to undo this request's writes and no other's.
     *
     * @throws StateException if a request is already open on the calling thread
     */
    void beginRequest();

    /** Closes the calling thread's request, keeping its writes. */
    void endRequest();

    /**
     * Undoes every write of the calling thread's request since {@link #beginRequest} and closes it; the
     * writes of the other requests of the batch, before, during and after it, stay. Afterwards the state
     * seals to the same root as if the request had never run.
     */
    void abortRequest();

    // Overlapping consecutive batches (docs/state.md, "Overlapping batches"). A state that supports it
    // attributes each write to the batch of the request that made it, so requests of batch n + 1 that
    // conflict with nothing in batch n may run while n's last requests finish and n is sealed.

    /**
     * Whether requests of batch {@code seq + 1} may write while batch {@code seq} is still open (false by
     * default, and false for a {@code seq} whose seal does work that needs quiescence, such as collecting
     * garbage).
     */
    default boolean canOverlap(long seq) {
        return false;
    }

    /**
     * Opens batch {@code seq} (the one after the batch in progress) for writes by threads marked as
     * executing it, before the batch in progress is sealed. Sealing the batch in progress then makes
     * {@code seq} the batch in progress, with the writes it already has.
     *
     * @throws StateException if this state cannot overlap batches, or {@code seq} is not the next batch
     */
    default void openNext(long seq) {
        throw new StateException(getClass().getSimpleName() + " does not overlap batches");
    }

    /**
     * Undoes the writes of the opened next batch and closes it. Called by the stage thread once no
     * request of that batch is running.
     */
    default void discardNext() {}

    /**
     * Whether, since the last call, a request wrote an object the other open batch had written (a conflict
     * the mixer did not declare, or a shared object such as a collection): then neither batch's version
     * can be trusted, and the caller must roll both back and run them again one after the other. Clears
     * the flag.
     */
    default boolean takeCrossBatchConflict() {
        return false;
    }
}
