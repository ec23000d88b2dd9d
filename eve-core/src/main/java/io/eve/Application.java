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
 * A thrown exception becomes an error reply, identical on every replica; it never stops the replica: an
 * {@link ApplicationException} carries its code to the client, any other exception the code
 * {@link ApplicationException#UNEXPECTED}.
 *
 * <p>An application with its own request and reply types writes a {@link TypedApplication} instead and
 * adapts it with {@link #typed}, which decodes each request once (see {@link #prepare}).
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

    /**
     * Turns a payload into the request that the execution stage asks for conflict keys and then executes,
     * once per request: an application that decodes its payloads does it here, once, instead of in both
     * {@link #conflictKeys} and {@link #execute}. Called on the stage thread; must be deterministic, and a
     * payload it cannot read may throw (the request then conflicts with every other and is answered with an
     * {@link ApplicationException#UNDECODABLE} error). By default the payload itself, handed to the two
     * methods above.
     */
    default PreparedRequest prepare(byte[] payload) {
        return new PayloadRequest(this, payload);
    }

    /**
     * {@code application} as an {@code Application} whose requests and replies {@code codec} turns into
     * bytes; each request is decoded once, by {@link #prepare}.
     */
    static <Q, R> Application typed(RequestCodec<Q, R> codec, TypedApplication<Q, R> application) {
        return new TypedAdapter<>(codec, application);
    }
}
