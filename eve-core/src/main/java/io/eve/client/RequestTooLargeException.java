package io.eve.client;

import io.eve.EveException;

/** A payload above the configured maximum; it was not sent. */
public final class RequestTooLargeException extends EveException {
    private static final long serialVersionUID = 1L;

    public RequestTooLargeException(String message) {
        super(message);
    }
}
