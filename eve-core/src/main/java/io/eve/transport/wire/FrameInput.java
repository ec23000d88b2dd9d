package io.eve.transport.wire;

import io.eve.merkle.Digest;
import java.util.Arrays;

/**
 * Reads big-endian fields of one frame body, checking every field, length and count against the bytes
 * left before the checksum, so that nothing is allocated that the frame does not itself hold. Offsets in
 * messages count from the start of the frame. Not thread-safe: one per {@link FrameCodec#decode} call.
 */
final class FrameInput {
    private final byte[] bytes;
    private final int frameStart;
    private final int limit;
    private int position;

    /** Reads {@code bytes} from {@code position} up to, not including, {@code limit}. */
    FrameInput(byte[] bytes, int frameStart, int position, int limit) {
        this.bytes = bytes;
        this.frameStart = frameStart;
        this.position = position;
        this.limit = limit;
    }

    int remaining() {
        return limit - position;
    }

    byte getByte(String what) {
        need(1, what);
        return bytes[position++];
    }

    int getInt(String what) {
        need(Integer.BYTES, what);
        int value = 0;
        for (int i = 0; i < Integer.BYTES; i++) {
            value = (value << 8) | (bytes[position++] & 0xff);
        }
        return value;
    }

    long getLong(String what) {
        need(Long.BYTES, what);
        long value = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            value = (value << 8) | (bytes[position++] & 0xff);
        }
        return value;
    }

    Digest getDigest(String what) {
        need(Digest.LENGTH, what);
        Digest digest = Digest.of(bytes, position);
        position += Digest.LENGTH;
        return digest;
    }

    /** A 4-byte length, then that many bytes. */
    byte[] getBytes(String what) {
        int length = getCount(1, what + " length");
        byte[] copy = Arrays.copyOfRange(bytes, position, position + length);
        position += length;
        return copy;
    }

    /** A 4-byte length of at most {@code maxLength}, then that many bytes; a longer one is refused unread. */
    byte[] getBytes(String what, int maxLength) {
        int offset = offset();
        int length = getCount(1, what + " length");
        if (length > maxLength) {
            throw new FrameException(
                    FrameException.Reason.INVALID_VALUE,
                    what + " length " + length + " at frame offset " + offset + " exceeds the limit of " + maxLength);
        }
        byte[] copy = Arrays.copyOfRange(bytes, position, position + length);
        position += length;
        return copy;
    }

    /**
     * A 4-byte count of items that take at least {@code minItemBytes} each, refused unless the rest of the
     * body could hold that many.
     */
    int getCount(int minItemBytes, String what) {
        int offset = offset();
        int count = getInt(what);
        if (count < 0) {
            throw new FrameException(
                    FrameException.Reason.TRUNCATED_BODY,
                    what + " " + count + " at frame offset " + offset + " is negative");
        }
        long needed = (long) count * minItemBytes;
        if (needed > remaining()) {
            throw new FrameException(
                    FrameException.Reason.TRUNCATED_BODY,
                    what + " " + count + " at frame offset " + offset + " needs at least " + needed + " bytes, but "
                            + remaining() + " remain in the body");
        }
        return count;
    }

    /** The position relative to the start of the frame. */
    int offset() {
        return position - frameStart;
    }

    private void need(int count, String what) {
        if (remaining() < count) {
            throw new FrameException(
                    FrameException.Reason.TRUNCATED_BODY,
                    "the body ends at frame offset " + (limit - frameStart) + ", inside the " + what
                            + " at frame offset " + offset() + " (" + count + " bytes)");
        }
    }
}
