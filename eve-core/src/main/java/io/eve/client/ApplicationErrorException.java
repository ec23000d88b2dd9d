package io.eve.client;

import io.eve.ApplicationError;
import io.eve.EveException;

/**
 * The service answered a {@link ServiceClient} request with an error: the application threw, or could not
 * decode the request. {@link #code()} is the {@link io.eve.ApplicationException#code() code} the
 * application chose (or {@code "unexpected"}, {@code "undecodable"}, {@code "replica"}), so callers
 * {@code switch} on it instead of parsing text. Immutable.
 */
public final class ApplicationErrorException extends EveException {
    private static final long serialVersionUID = 1L;

    private final transient ApplicationError error;

    public ApplicationErrorException(ApplicationError error) {
        super(error.code() + ": " + error.text());
        this.error = error;
    }

    /** The error code, stable across versions of the application. */
    public String code() {
        return error.code();
    }

    /** The application's message, without the code. */
    public String message() {
        return error.message();
    }

    /** The detail payload of the {@link io.eve.ApplicationException}, or empty. */
    public byte[] detail() {
        return error.detail();
    }

    /** The whole error, with the class of the exception the application threw. */
    public ApplicationError error() {
        return error;
    }
}
