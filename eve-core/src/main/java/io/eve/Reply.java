package io.eve;

import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * The answer to a {@link Request}. An application exception becomes an error reply whose payload is an
 * encoded {@link ApplicationError} (code, message, exception class, detail), identical on every replica;
 * errors the replica answers itself (a stale request number) are UTF-8 text.
 *
 * @param clientId the requesting client
 * @param requestSeq the request's number
 * @param error whether the application threw instead of answering
 * @param payload the application's answer, or the error
 */
public record Reply(long clientId, long requestSeq, boolean error, byte[] payload) {
    public Reply {
        Objects.requireNonNull(payload, "payload");
    }

    public static Reply of(Request request, byte[] payload) {
        return new Reply(request.clientId(), request.requestSeq(), false, payload);
    }

    /** The error reply to {@code request} whose execution threw {@code cause} (see {@link ApplicationError#of}). */
    public static Reply failure(Request request, Throwable cause) {
        return new Reply(
                request.clientId(),
                request.requestSeq(),
                true,
                ApplicationError.of(cause).encode());
    }

    /**
     * The error of an error reply, or empty.
     *
     * @throws EveException if the error is in a layout this version cannot read
     */
    public Optional<ApplicationError> applicationError() {
        return error ? Optional.of(ApplicationError.decode(payload)) : Optional.empty();
    }

    /** The error code of an error reply ({@link ApplicationException#code()}), or empty. */
    public String errorCode() {
        return applicationError().map(ApplicationError::code).orElse("");
    }

    /** The message of an error reply, or empty. */
    public String errorMessage() {
        return applicationError().map(ApplicationError::message).orElse("");
    }

    /**
     * The error text of an error reply, as before errors had codes: the exception's class and message, or
     * the replica's text; empty for other replies. Never throws.
     */
    public String errorText() {
        if (!error) {
            return "";
        }
        try {
            return ApplicationError.decode(payload).text();
        } catch (EveException e) {
            return e.getMessage();
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Reply that
                && clientId == that.clientId
                && requestSeq == that.requestSeq
                && error == that.error
                && Arrays.equals(payload, that.payload);
    }

    @Override
    public int hashCode() {
        return Objects.hash(clientId, requestSeq, error, Arrays.hashCode(payload));
    }

    @Override
    public String toString() {
        return "Reply[client " + clientId + " #" + requestSeq + (error ? ", error " + errorText() : "") + "]";
    }
}
