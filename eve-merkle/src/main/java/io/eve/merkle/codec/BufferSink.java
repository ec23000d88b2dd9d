package io.eve.merkle.codec;

import java.util.Arrays;

/**
 * A growable byte buffer for encodings that travel (state deltas). Not thread-safe.
 */
public final class BufferSink implements Sink {
    private byte[] buffer;
    private int position;

    public BufferSink(int initialCapacity) {
        buffer = new byte[Math.max(16, initialCapacity)];
    }

    @Override
    public void putByte(int value) {
        ensure(1);
        buffer[position++] = (byte) value;
    }

    @Override
    public void putInt(int value) {
        ensure(Integer.BYTES);
        for (int shift = 24; shift >= 0; shift -= 8) {
            buffer[position++] = (byte) (value >>> shift);
        }
    }

    @Override
    public void putLong(long value) {
        ensure(Long.BYTES);
        for (int shift = 56; shift >= 0; shift -= 8) {
            buffer[position++] = (byte) (value >>> shift);
        }
    }

    @Override
    public void putBytes(byte[] bytes, int offset, int length) {
        ensure(length);
        System.arraycopy(bytes, offset, buffer, position, length);
        position += length;
    }

    public int size() {
        return position;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(buffer, position);
    }

    private void ensure(int bytes) {
        if (position + bytes > buffer.length) {
            int wanted = Math.max(position + bytes, buffer.length * 2);
            buffer = Arrays.copyOf(buffer, wanted);
        }
    }
}
