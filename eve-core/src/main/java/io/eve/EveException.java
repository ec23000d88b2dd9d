package io.eve;

/** Root of the exceptions eve-core throws; a subclass exists only where the caller acts differently. */
public class EveException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public EveException(String message) {
        super(message);
    }

    public EveException(String message, Throwable cause) {
        super(message, cause);
    }
}
