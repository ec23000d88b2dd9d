package io.eve;

import io.eve.merkle.VersionedState;
import io.eve.mixer.ConflictKeys;

/**
 * A replicated service, as Eve sees it: state the framework can seal, roll back and transfer, a way to
 * tell which requests conflict, and the code that executes one request.
 *
 * <p>{@link #execute} runs on the executor threads, concurrently with the other requests of its parallel
 * batch. It must be deterministic given its payload, the state and the {@link ExecutionContext}: no wall
 * clock, {@code Math.random}, thread ids or identity hash codes in anything that reaches state or replies.
 * A thrown exception becomes an error reply, identical on every replica; it never stops the replica.
 */
public interface Application {

    /** The replicated state. The application builds its initial objects before the replica starts. */
    VersionedState state();

    /** The objects a request reads and writes, for the mixer (Eve §5.1). A pure function of the payload. */
    ConflictKeys conflictKeys(byte[] payload);

    /**
     * Executes one request and returns its reply payload.
     *
     * <p>A request that throws is atomic: the stage undoes every write it made to the state (objects it
     * {@code modify}d, replicated collections and cells, roots, an eve-h2 transaction), and only its, then
     * returns the exception as the error reply, on every replica alike (docs/state.md, "A failed request
     * leaves no trace"). An exception caught inside the request undoes nothing; rethrow it to fail the
     * request. To have writes to an object created by an earlier request of the same batch undone, call
     * {@code modify} on it first.
     */
    byte[] execute(byte[] payload, ExecutionContext context) throws Exception;
}
