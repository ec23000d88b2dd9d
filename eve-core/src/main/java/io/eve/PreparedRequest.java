package io.eve;

import io.eve.mixer.ConflictKeys;

/**
 * One request as its {@link Application} understands it, made once by {@link Application#prepare} so that
 * the mixer's question ({@link #conflictKeys}) and the execution ({@link #execute}) share one decoding.
 *
 * <p>Made on the execution stage's thread; {@link #conflictKeys} is called there, {@link #execute} on an
 * executor thread (or on the stage thread for a read-only request), after the stage handed the object
 * over. Both may be called more than once (the batch is planned again, or executed again after a
 * rollback), so an implementation must be immutable and both methods deterministic.
 */
public interface PreparedRequest {

    /** The objects the request reads and writes (Eve §5.1); a thrown exception makes it conflict with all. */
    ConflictKeys conflictKeys();

    /** Executes the request and returns its reply payload; a thrown exception becomes an error reply. */
    byte[] execute(ExecutionContext context) throws Exception;
}
