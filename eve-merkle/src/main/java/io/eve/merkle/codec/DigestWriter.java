package io.eve.merkle.codec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.MessageDigest;

/**
 * A {@link Sink} that gathers small values in a scratch array and hands them to a {@link MessageDigest}
 * in one call, while large byte arrays go to the digest directly, never copied. The base of
 * {@link HashSink} (which owns its digest) and {@link DigestFeed} (which feeds someone else's). Not
 * thread-safe.
 */
abstract class DigestWriter implements Sink {
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private final byte[] scratch;
    private final int directThreshold;
    private int position;

    DigestWriter(int scratchBytes, int directThreshold) {
        this.scratch = new byte[scratchBytes];
        this.directThreshold = directThreshold;
    }

    /** Where the bytes go. */
    abstract MessageDigest target();

    @Override
    public final void putByte(int value) {
        ensure(1);
        scratch[position++] = (byte) value;
    }

    @Override
    public final void putInt(int value) {
        ensure(Integer.BYTES);
        INT.set(scratch, position, value);
        position += Integer.BYTES;
    }

    @Override
    public final void putLong(long value) {
        ensure(Long.BYTES);
        LONG.set(scratch, position, value);
        position += Long.BYTES;
    }

    @Override
    public final void putChar(char value) {
        ensure(Character.BYTES);
        scratch[position] = (byte) (value >> 8);
        scratch[position + 1] = (byte) value;
        position += Character.BYTES;
    }

    @Override
    public final void putBytes(byte[] bytes, int offset, int length) {
        if (length >= directThreshold) {
            flush();
            target().update(bytes, offset, length);
        } else {
            ensure(length);
            System.arraycopy(bytes, offset, scratch, position, length);
            position += length;
        }
    }

    /** Hands what is buffered to the digest. */
    public final void flush() {
        if (position > 0) {
            target().update(scratch, 0, position);
            position = 0;
        }
    }

    /** Forgets what is buffered. */
    final void discard() {
        position = 0;
    }

    private void ensure(int bytes) {
        if (position + bytes > scratch.length) {
            flush();
        }
    }
}
