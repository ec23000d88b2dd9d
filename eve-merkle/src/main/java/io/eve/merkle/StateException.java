package io.eve.merkle;

/**
 * A misuse of the state API or a broken invariant: an unsupported field type, a version out of range, a
 * forgotten {@code modify} caught by the debug mode.
 *
 * <p>eve-merkle is a leaf module and cannot see eve-core's {@code EveException}; this is its own root.
 */
public class StateException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public StateException(String message) {
        super(message);
    }

    public StateException(String message, Throwable cause) {
        super(message, cause);
    }
}
