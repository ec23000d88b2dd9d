package io.eve.transport.wire;

import io.eve.EveException;
import java.util.Objects;

/**
 * A frame that cannot be encoded or decoded. The {@link #reason()} says which check failed, the message
 * says what was found and what was expected. A transport that meets one while decoding closes the
 * connection the frame came from and logs the message; nothing else about the node changes.
 */
public final class FrameException extends EveException {
    private static final long serialVersionUID = 1L;

    /** Which check failed, in the order the decoder makes them. */
    public enum Reason {
        /** The length field is below the smallest possible frame. */
        FRAME_TOO_SHORT,
        /** The length field, or a message being encoded, exceeds the configured maximum frame size. */
        FRAME_TOO_LONG,
        /** The bytes handed to the decoder are not exactly one frame of the length the frame declares. */
        LENGTH_MISMATCH,
        /** The frame does not start with the Eve magic number. */
        BAD_MAGIC,
        /** The frame was written in a format version this node does not speak. */
        UNSUPPORTED_VERSION,
        /** The message type byte names no message. */
        UNKNOWN_TYPE,
        /** A field, length or count of the body reaches past the end of the body. */
        TRUNCATED_BODY,
        /** The CRC32C of the frame differs from the one it carries. */
        BAD_CHECKSUM,
        /** The body ends before the checksum: bytes are left over. */
        TRAILING_BYTES,
        /** A field holds a value its message does not allow (a request number of 0, a forged token). */
        INVALID_VALUE
    }

    private final Reason reason;

    public FrameException(Reason reason, String message) {
        super(message);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public FrameException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public Reason reason() {
        return reason;
    }
}
