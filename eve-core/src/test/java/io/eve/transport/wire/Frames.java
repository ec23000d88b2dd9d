package io.eve.transport.wire;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32C;

/** Byte surgery on encoded frames, for building the hostile inputs a decoder must refuse. */
final class Frames {
    /** Offset of the first body byte: length field, magic, version, type. */
    static final int BODY = 10;

    private Frames() {}

    static byte[] withInt(byte[] frame, int offset, int value) {
        byte[] copy = frame.clone();
        ByteBuffer.wrap(copy).putInt(offset, value);
        return copy;
    }

    static byte[] withLong(byte[] frame, int offset, long value) {
        byte[] copy = frame.clone();
        ByteBuffer.wrap(copy).putLong(offset, value);
        return copy;
    }

    static byte[] withByte(byte[] frame, int offset, int value) {
        byte[] copy = frame.clone();
        copy[offset] = (byte) value;
        return copy;
    }

    /** Makes the length field and the checksum honest again, so that only deeper checks can object. */
    static byte[] reseal(byte[] frame) {
        byte[] copy = frame.clone();
        ByteBuffer buffer = ByteBuffer.wrap(copy);
        buffer.putInt(0, copy.length - 4);
        CRC32C crc = new CRC32C();
        crc.update(copy, 4, copy.length - 8);
        buffer.putInt(copy.length - 4, (int) crc.getValue());
        return copy;
    }

    /** Inserts {@code extra} just before the checksum, then reseals. */
    static byte[] withBodySuffix(byte[] frame, byte[] extra) {
        byte[] longer = Arrays.copyOf(frame, frame.length + extra.length);
        System.arraycopy(extra, 0, longer, frame.length - 4, extra.length);
        return reseal(longer);
    }

    /** A frame of the given type whose body is {@code body}, honestly sealed. */
    static byte[] frame(int type, byte[] body) {
        byte[] frame = new byte[BODY + body.length + 4];
        ByteBuffer.wrap(frame)
                .putInt(4, FrameCodec.MAGIC)
                .put(8, (byte) FrameCodec.VERSION)
                .put(9, (byte) type);
        System.arraycopy(body, 0, frame, BODY, body.length);
        return reseal(frame);
    }
}
