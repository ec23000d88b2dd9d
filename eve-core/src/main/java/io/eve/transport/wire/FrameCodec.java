package io.eve.transport.wire;

import io.eve.protocol.Message;
import io.eve.transport.wire.FrameException.Reason;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.zip.CRC32C;

/**
 * Turns one {@link Message} into one frame and one frame back into its message (layout in docs/protocol.md,
 * "Wire format"):
 *
 * <pre>
 * int length (of what follows) | int magic "EVEW" | byte version | byte type | body | int CRC32C(magic..body)
 * </pre>
 *
 * <p>Decoding treats the frame as hostile. It checks, in this order and before allocating anything the
 * frame does not pay for: the length against the configured maximum, the magic, the version, the type,
 * every length and count inside the body against the bytes that remain, the checksum, that the body fills
 * the frame exactly, and finally the values themselves (request and batch numbers from 1, token digests
 * that match their fields, deltas that go forwards). Every failure is a {@link FrameException}; no other
 * exception escapes for any input.
 *
 * <p>Streams arrive in pieces: {@link #completeFrameLength(ByteBuffer)} says whether a whole frame is
 * buffered, and refuses a bad header as soon as its bytes are there rather than waiting for a frame that
 * may never end.
 *
 * <p>Immutable and thread-safe; any number of connections may share one codec.
 */
public final class FrameCodec {
    /** "EVEW": every frame starts with it. */
    public static final int MAGIC = 0x45564557;

    /** The only format version this codec writes and reads. */
    public static final int VERSION = 2;

    /** The smallest maximum frame size a codec accepts: room for every message without a payload. */
    public static final int SMALLEST_MAXIMUM = 1024;

    /** The largest maximum frame size a codec accepts: a frame must fit in one array with room to spare. */
    public static final int LARGEST_MAXIMUM = 1 << 30;

    /** What {@link #completeFrameLength(ByteBuffer)} returns until a whole frame is buffered. */
    public static final int INCOMPLETE = 0;

    static final int LENGTH_FIELD_BYTES = Integer.BYTES;

    /** Length field, magic, version and type: what a reader needs to know a frame's length and kind. */
    public static final int HEADER_BYTES = LENGTH_FIELD_BYTES + Integer.BYTES + 1 + 1;

    static final int CHECKSUM_BYTES = Integer.BYTES;

    /** The least the length field can say: magic, version, type, an empty body and the checksum. */
    static final int MIN_LENGTH = HEADER_BYTES - LENGTH_FIELD_BYTES + CHECKSUM_BYTES;

    private final int maxFrameBytes;

    /**
     * @param maxFrameBytes the largest frame, length field included, this codec writes or reads; between
     *     {@link #SMALLEST_MAXIMUM} and {@link #LARGEST_MAXIMUM}
     */
    public FrameCodec(int maxFrameBytes) {
        if (maxFrameBytes < SMALLEST_MAXIMUM || maxFrameBytes > LARGEST_MAXIMUM) {
            throw new IllegalArgumentException("the maximum frame size " + maxFrameBytes + " must lie between "
                    + SMALLEST_MAXIMUM + " and " + LARGEST_MAXIMUM + " bytes");
        }
        this.maxFrameBytes = maxFrameBytes;
    }

    public int maxFrameBytes() {
        return maxFrameBytes;
    }

    /**
     * The frame of {@code message}.
     *
     * @throws FrameException with {@link Reason#FRAME_TOO_LONG} if the frame would exceed the maximum; nothing
     *     is allocated then
     */
    public byte[] encode(Message message) {
        MessageType type = MessageType.of(Objects.requireNonNull(message, "message"));
        long frameBytes = HEADER_BYTES + type.bodySize(message) + CHECKSUM_BYTES;
        if (frameBytes > maxFrameBytes) {
            throw new FrameException(
                    Reason.FRAME_TOO_LONG,
                    "the " + type.displayName() + " frame of " + frameBytes + " bytes exceeds the maximum frame size "
                            + maxFrameBytes);
        }
        byte[] frame = new byte[(int) frameBytes];
        FrameOutput out = new FrameOutput(frame);
        out.putInt(frame.length - LENGTH_FIELD_BYTES);
        out.putInt(MAGIC);
        out.putByte(VERSION);
        out.putByte(type.code());
        type.writeBody(message, out);
        out.putInt(checksum(frame, 0, out.position()));
        if (out.position() != frame.length) {
            throw new IllegalStateException("the " + type.displayName() + " layout sized " + frame.length
                    + " bytes but wrote " + out.position());
        }
        return frame;
    }

    /** The message in {@code frame}, which must hold exactly one frame. */
    public Message decode(byte[] frame) {
        return decode(frame, 0, frame.length);
    }

    /**
     * The message in {@code bytes[offset, offset + length)}, which must hold exactly one frame.
     *
     * @throws FrameException naming the first check the frame fails
     */
    public Message decode(byte[] bytes, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, bytes.length);
        if (length < LENGTH_FIELD_BYTES) {
            throw new FrameException(
                    Reason.LENGTH_MISMATCH,
                    "a frame starts with a 4-byte length, but only " + length + " bytes were given");
        }
        int declared = intAt(bytes, offset);
        checkLength(declared);
        if (declared != length - LENGTH_FIELD_BYTES) {
            throw new FrameException(
                    Reason.LENGTH_MISMATCH,
                    "the frame length says " + declared + " bytes follow it, but " + (length - LENGTH_FIELD_BYTES)
                            + " were given");
        }
        checkMagic(intAt(bytes, offset + LENGTH_FIELD_BYTES));
        checkVersion(bytes[offset + HEADER_BYTES - 2]);
        MessageType type = checkType(bytes[offset + HEADER_BYTES - 1]);
        int bodyEnd = offset + length - CHECKSUM_BYTES;
        FrameInput in = new FrameInput(bytes, offset, offset + HEADER_BYTES, bodyEnd);
        Supplier<Message> pending = type.readBody(in);
        checkChecksum(bytes, offset, bodyEnd);
        if (in.remaining() != 0) {
            throw new FrameException(
                    Reason.TRAILING_BYTES,
                    "the " + type.displayName() + " body ends at frame offset " + in.offset() + ", leaving "
                            + in.remaining() + " bytes before the checksum");
        }
        return build(type, pending);
    }

    /**
     * How many bytes, from the buffer's position, make up the first frame, or {@link #INCOMPLETE} while
     * fewer are buffered. Reads without moving the position. The header is checked as far as it has
     * arrived, so a stream that is not Eve's, or a frame above the maximum, fails at once.
     *
     * @throws FrameException if the length, magic, version or type that have arrived are wrong
     */
    public int completeFrameLength(ByteBuffer buffer) {
        int available = buffer.remaining();
        byte[] header = new byte[Math.min(available, HEADER_BYTES)];
        buffer.get(buffer.position(), header);
        return checkHeader(header, 0, header.length, available);
    }

    /** As {@link #completeFrameLength(ByteBuffer)}, for the bytes in {@code bytes[offset, offset + length)}. */
    public int completeFrameLength(byte[] bytes, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, bytes.length);
        return checkHeader(bytes, offset, Math.min(length, HEADER_BYTES), length);
    }

    /**
     * As {@link #completeFrameLength(ByteBuffer)}, for a stream of which {@code available} bytes are buffered
     * and the first {@code headerBytes} of them (at least the header's, or all when fewer are buffered) were
     * copied to {@code header[offset, offset + headerBytes)}: a reader can check a frame's header without
     * allocating.
     */
    public int completeFrameLength(byte[] header, int offset, int headerBytes, int available) {
        Objects.checkFromIndexSize(offset, headerBytes, header.length);
        if (headerBytes < Math.min(available, HEADER_BYTES) || headerBytes > available) {
            throw new IllegalArgumentException("with " + available + " bytes buffered the header needs "
                    + Math.min(available, HEADER_BYTES) + " of them, got " + headerBytes);
        }
        return checkHeader(header, offset, headerBytes, available);
    }

    private int checkHeader(byte[] header, int offset, int headerBytes, int available) {
        if (headerBytes < LENGTH_FIELD_BYTES) {
            return INCOMPLETE;
        }
        int declared = intAt(header, offset);
        checkLength(declared);
        if (headerBytes >= LENGTH_FIELD_BYTES + Integer.BYTES) {
            checkMagic(intAt(header, offset + LENGTH_FIELD_BYTES));
        }
        if (headerBytes >= HEADER_BYTES - 1) {
            checkVersion(header[offset + HEADER_BYTES - 2]);
        }
        if (headerBytes >= HEADER_BYTES) {
            checkType(header[offset + HEADER_BYTES - 1]);
        }
        int frameBytes = LENGTH_FIELD_BYTES + declared;
        return available >= frameBytes ? frameBytes : INCOMPLETE;
    }

    private void checkLength(int declared) {
        if (declared < MIN_LENGTH) {
            throw new FrameException(
                    Reason.FRAME_TOO_SHORT,
                    "frame length " + declared + " is below the minimum " + MIN_LENGTH
                            + " (magic, version, type and checksum)");
        }
        int maxLength = maxFrameBytes - LENGTH_FIELD_BYTES;
        if (declared > maxLength) {
            throw new FrameException(
                    Reason.FRAME_TOO_LONG,
                    "frame length " + declared + " exceeds the maximum " + maxLength + " (the maximum frame size "
                            + maxFrameBytes + " less the 4-byte length field)");
        }
    }

    private static void checkMagic(int magic) {
        if (magic != MAGIC) {
            throw new FrameException(
                    Reason.BAD_MAGIC,
                    "magic " + hex(magic) + " is not Eve's " + hex(MAGIC)
                            + " (\"EVEW\"): the peer does not speak this protocol");
        }
    }

    private static void checkVersion(byte version) {
        if (version != VERSION) {
            throw new FrameException(
                    Reason.UNSUPPORTED_VERSION,
                    "format version " + (version & 0xff) + " is not supported; this node speaks version " + VERSION);
        }
    }

    private static MessageType checkType(byte code) {
        MessageType type = MessageType.ofCode(code & 0xff);
        if (type == null) {
            throw new FrameException(Reason.UNKNOWN_TYPE, "message type " + (code & 0xff) + " is not known");
        }
        return type;
    }

    private static void checkChecksum(byte[] bytes, int offset, int bodyEnd) {
        int carried = intAt(bytes, bodyEnd);
        int computed = checksum(bytes, offset, bodyEnd);
        if (carried != computed) {
            throw new FrameException(
                    Reason.BAD_CHECKSUM,
                    "the frame carries checksum " + hex(carried) + ", but its bytes give " + hex(computed));
        }
    }

    private static Message build(MessageType type, Supplier<Message> pending) {
        try {
            return pending.get();
        } catch (IllegalArgumentException e) {
            throw new FrameException(
                    Reason.INVALID_VALUE, "the " + type.displayName() + " is invalid: " + e.getMessage(), e);
        }
    }

    /** CRC32C of the frame at {@code frameStart}, from its magic up to, not including, {@code bodyEnd}. */
    private static int checksum(byte[] bytes, int frameStart, int bodyEnd) {
        CRC32C crc = new CRC32C();
        int from = frameStart + LENGTH_FIELD_BYTES;
        crc.update(bytes, from, bodyEnd - from);
        return (int) crc.getValue();
    }

    private static int intAt(byte[] bytes, int offset) {
        return ((bytes[offset] & 0xff) << 24)
                | ((bytes[offset + 1] & 0xff) << 16)
                | ((bytes[offset + 2] & 0xff) << 8)
                | (bytes[offset + 3] & 0xff);
    }

    private static String hex(int value) {
        return String.format("0x%08x", value);
    }
}
