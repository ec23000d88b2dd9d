package io.eve;

/**
 * A call reached a {@link Replica} that was closed, or that stopped after an internal failure (the
 * failure is the cause). Thrown at once: a closed replica has no threads left to answer.
 */
public final class ReplicaClosedException extends EveException {
    private static final long serialVersionUID = 1L;

    public ReplicaClosedException(String message) {
        super(message);
    }

    public ReplicaClosedException(String message, Throwable cause) {
        super(message, cause);
    }
}
