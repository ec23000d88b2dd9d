package io.eve.merkle.codec;

/** Input that does not follow its documented encoding; the message says what and where. */
public final class MalformedInputException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MalformedInputException(String message) {
        super(message);
    }
}
