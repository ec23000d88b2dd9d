package io.eve;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * The answer to a {@link Request}. An application exception becomes an error reply whose payload is the
 * exception's class and message, identical on every replica.
 *
 * @param clientId the requesting client
 * @param requestSeq the request's number
 * @param error whether the application threw instead of answering
 * @param payload the application's answer, or the UTF-8 error text
 */
public record Reply(long clientId, long requestSeq, boolean error, byte[] payload) {
    public Reply {
        Objects.requireNonNull(payload, "payload");
    }

    public static Reply of(Request request, byte[] payload) {
        return new Reply(request.clientId(), request.requestSeq(), false, payload);
    }

    public static Reply failure(Request request, Throwable cause) {
        String text = cause.getClass().getName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
        return new Reply(request.clientId(), request.requestSeq(), true, text.getBytes(StandardCharsets.UTF_8));
    }

    /** The error text of an error reply. */
    public String errorText() {
        return error ? new String(payload, StandardCharsets.UTF_8) : "";
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
