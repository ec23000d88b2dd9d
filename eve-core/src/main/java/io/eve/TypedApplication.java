package io.eve;

import io.eve.merkle.VersionedState;
import io.eve.mixer.ConflictKeys;

/**
 * A replicated service written against its own request and reply types. {@link Application#typed} adapts
 * it to {@link Application} with a {@link RequestCodec}: each request is decoded once, and the decoded
 * value is handed to both {@link #conflictKeys} and {@link #execute}. A payload that does not decode is
 * answered with an {@link ApplicationException#UNDECODABLE} error and conflicts with every request.
 *
 * <p>The rules of {@link Application} hold: {@link #execute} runs on the executor threads, concurrently
 * with other requests, and must be deterministic. It must not modify the request it is given: after a
 * rollback the same decoded value is executed again. To answer with an error a client can match, throw an
 * {@link ApplicationException} with a stable code.
 *
 * @param <Q> the request type
 * @param <R> the reply type
 */
public interface TypedApplication<Q, R> {

    /** The replicated state. The application builds its initial objects before the replica starts. */
    VersionedState state();

    /** The objects a request reads and writes, for the mixer (Eve §5.1). A pure function of the request. */
    ConflictKeys conflictKeys(Q request);

    /** Executes one request and returns its reply. */
    R execute(Q request, ExecutionContext context) throws Exception;
}
