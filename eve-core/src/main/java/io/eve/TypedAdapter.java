package io.eve;

import io.eve.merkle.VersionedState;
import io.eve.mixer.ConflictKeys;
import java.util.Objects;

/**
 * {@link Application#typed}: a {@link TypedApplication} seen as an {@link Application}. {@link #prepare}
 * decodes the payload once into a {@link Decoded} request; the byte-array methods decode on every call,
 * for callers that use them directly. As thread-safe as the codec and the application.
 */
final class TypedAdapter<Q, R> implements Application {
    private final RequestCodec<Q, R> codec;
    private final TypedApplication<Q, R> application;

    TypedAdapter(RequestCodec<Q, R> codec, TypedApplication<Q, R> application) {
        this.codec = Objects.requireNonNull(codec, "codec");
        this.application = Objects.requireNonNull(application, "application");
    }

    @Override
    public VersionedState state() {
        return application.state();
    }

    @Override
    public PreparedRequest prepare(byte[] payload) {
        return new Decoded<>(decode(payload), codec, application);
    }

    @Override
    public ConflictKeys conflictKeys(byte[] payload) {
        return application.conflictKeys(decode(payload));
    }

    @Override
    public byte[] execute(byte[] payload, ExecutionContext context) throws Exception {
        return codec.encodeReply(application.execute(decode(payload), context));
    }

    /** The decoded request, or an {@link ApplicationException#UNDECODABLE} error that says why not. */
    private Q decode(byte[] payload) {
        Q request;
        try {
            request = codec.decodeRequest(payload);
        } catch (RuntimeException e) {
            throw new ApplicationException(
                    ApplicationException.UNDECODABLE,
                    "a request payload of " + payload.length + " bytes could not be decoded: " + describe(e));
        }
        if (request == null) {
            throw new ApplicationException(
                    ApplicationException.UNDECODABLE,
                    "a request payload of " + payload.length + " bytes decoded to null");
        }
        return request;
    }

    private static String describe(RuntimeException e) {
        return e.getClass().getName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }

    /** A request decoded once; conflict keys and execution both read it. */
    private record Decoded<Q, R>(Q request, RequestCodec<Q, R> codec, TypedApplication<Q, R> application)
            implements PreparedRequest {

        @Override
        public ConflictKeys conflictKeys() {
            return application.conflictKeys(request);
        }

        @Override
        public byte[] execute(ExecutionContext context) throws Exception {
            return codec.encodeReply(application.execute(request, context));
        }
    }
}
