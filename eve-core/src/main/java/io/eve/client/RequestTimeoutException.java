package io.eve.client;

import io.eve.EveException;

/** No reply arrived within the request timeout, after resending to every replica. */
public final class RequestTimeoutException extends EveException {
    private static final long serialVersionUID = 1L;

    public RequestTimeoutException(String message) {
        super(message);
    }
}
