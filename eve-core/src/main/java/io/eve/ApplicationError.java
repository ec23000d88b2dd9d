package io.eve;

import java.util.Arrays;
import java.util.Objects;

/**
 * The error an error {@link Reply} carries: what a client matches on ({@link #code}), a message, the class
 * of the exception the application threw (empty for an error the replica answered itself) and the
 * exception's detail payload. Encoded in the reply's payload in a versioned layout
 * (docs/application.md, "Typed requests and errors"), so it is the same bytes on every replica.
 *
 * @param code an {@link ApplicationException} code, or {@link ApplicationException#UNEXPECTED} and the others
 *     Eve reserves
 * @param message what went wrong, for people; empty when the exception had none
 * @param exceptionClass the binary name of the exception's class, or empty
 * @param detail the {@link ApplicationException#detail()}, empty for other exceptions
 */
public record ApplicationError(String code, String message, String exceptionClass, byte[] detail) {
    public ApplicationError {
        ApplicationException.checkCode(code);
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(exceptionClass, "exceptionClass");
        detail = Objects.requireNonNull(detail, "detail").clone();
    }

    /** The error that {@code cause}, thrown by an application, answers with. */
    public static ApplicationError of(Throwable cause) {
        String message = cause.getMessage() == null ? "" : cause.getMessage();
        String type = cause.getClass().getName();
        if (cause instanceof ApplicationException application) {
            return new ApplicationError(application.code(), message, type, application.detail());
        }
        return new ApplicationError(ApplicationException.UNEXPECTED, message, type, new byte[0]);
    }

    /**
     * Reads the payload of an error reply. A payload in the text form of replica errors (and of error
     * replies before this layout) reads as a {@link ApplicationException#REPLICA} error with that text.
     *
     * @throws EveException if the payload is in a later version of the layout or is malformed
     */
    public static ApplicationError decode(byte[] payload) {
        return ErrorPayload.decode(payload);
    }

    /** The error in the layout an error reply carries. */
    public byte[] encode() {
        return ErrorPayload.encode(this);
    }

    /** The exception's class and message, the way error replies read before they carried codes. */
    public String text() {
        if (exceptionClass.isEmpty()) {
            return message;
        }
        return message.isEmpty() ? exceptionClass : exceptionClass + ": " + message;
    }

    @Override
    public byte[] detail() {
        return detail.clone();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ApplicationError that
                && code.equals(that.code)
                && message.equals(that.message)
                && exceptionClass.equals(that.exceptionClass)
                && Arrays.equals(detail, that.detail);
    }

    @Override
    public int hashCode() {
        return Objects.hash(code, message, exceptionClass, Arrays.hashCode(detail));
    }

    @Override
    public String toString() {
        return "ApplicationError[" + code + ", " + text() + (detail.length == 0 ? "" : ", " + detail.length + " bytes")
                + "]";
    }
}
