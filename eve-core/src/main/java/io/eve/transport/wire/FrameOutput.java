package io.eve.transport.wire;

import io.eve.merkle.Digest;

/**
 * Writes big-endian fields into an array sized in advance for exactly one frame. Not thread-safe: one
 * per {@link FrameCodec#encode} call.
 */
final class FrameOutput {
    private final byte[] frame;
    private int position;

    FrameOutput(byte[] frame) {
        this.frame = frame;
    }

    void putByte(int value) {
        frame[position++] = (byte) value;
    }

    void putBoolean(boolean value) {
        putByte(value ? 1 : 0);
    }

    void putInt(int value) {
        for (int shift = 24; shift >= 0; shift -= 8) {
            frame[position++] = (byte) (value >>> shift);
        }
    }

    void putLong(long value) {
        for (int shift = 56; shift >= 0; shift -= 8) {
            frame[position++] = (byte) (value >>> shift);
        }
    }

    void putDigest(Digest digest) {
        digest.copyTo(frame, position);
        position += Digest.LENGTH;
    }

    /** A 4-byte length, then the bytes. */
    void putBytes(byte[] bytes) {
        putInt(bytes.length);
        System.arraycopy(bytes, 0, frame, position, bytes.length);
        position += bytes.length;
    }

    int position() {
        return position;
    }
}
