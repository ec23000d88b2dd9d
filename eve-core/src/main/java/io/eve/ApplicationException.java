package io.eve;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An error an application answers with on purpose: a stable {@link #code} the client matches on, a message
 * for people and an optional small detail payload, all carried to the client in the error reply
 * ({@link Reply#errorCode()}, {@link io.eve.client.ApplicationErrorException}). Thrown from
 * {@link Application#execute} or {@link TypedApplication#execute}; an application may define subclasses.
 *
 * <p>The reply must be identical on every replica, so the code, message and detail must depend only on the
 * request and the state: no clock readings, identity hash codes or object addresses. The stack trace and
 * cause never leave the replica. The codes {@link #UNEXPECTED}, {@link #UNDECODABLE} and {@link #REPLICA}
 * are Eve's.
 *
 * <p>Immutable.
 */
public class ApplicationException extends EveException {
    /** Any exception other than an {@code ApplicationException}; the reply records its class. */
    public static final String UNEXPECTED = "unexpected";

    /** A request payload the application could not decode. */
    public static final String UNDECODABLE = "undecodable";

    /** An error the replica answered itself, as text (a stale request number, a read to send again). */
    public static final String REPLICA = "replica";

    static final int MAX_CODE_LENGTH = 64;

    private static final Pattern CODE = Pattern.compile("[A-Za-z0-9._-]{1," + MAX_CODE_LENGTH + "}");
    private static final long serialVersionUID = 1L;
    private static final byte[] NO_DETAIL = new byte[0];

    private final String code;
    private final byte[] detail;

    /**
     * @param code letters, digits, '.', '-' and '_', 1 to 64 of them, stable across versions of the application
     * @param message what went wrong, for people
     */
    public ApplicationException(String code, String message) {
        this(code, message, NO_DETAIL);
    }

    /** @param detail a small payload the client can decode, such as the id of the conflicting object */
    public ApplicationException(String code, String message, byte[] detail) {
        super(Objects.requireNonNull(message, "message"));
        this.code = checkCode(code);
        this.detail = Objects.requireNonNull(detail, "detail").clone();
    }

    static String checkCode(String code) {
        Objects.requireNonNull(code, "code");
        if (!CODE.matcher(code).matches()) {
            throw new IllegalArgumentException("an error code is 1 to " + MAX_CODE_LENGTH
                    + " letters, digits, '.', '-' or '_', got '" + code + "'");
        }
        return code;
    }

    public String code() {
        return code;
    }

    public byte[] detail() {
        return detail.clone();
    }
}
