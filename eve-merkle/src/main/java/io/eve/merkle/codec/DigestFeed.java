package io.eve.merkle.codec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.MessageDigest;

/**
 * A {@link Sink} that feeds someone else's {@link MessageDigest} through a small scratch array, for code
 * that is handed a digest to update (the values of a trie bucket). Call {@link #flush()} when done. Not
 * thread-safe: one per thread ({@link #feeding(MessageDigest)}).
 */
public final class DigestFeed implements Sink {
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final ThreadLocal<DigestFeed> PER_THREAD = ThreadLocal.withInitial(DigestFeed::new);
    private static final int SCRATCH = 256;

    private final byte[] scratch = new byte[SCRATCH];
    private MessageDigest target;
    private int position;

    /** The calling thread's feed, now writing into {@code target}. */
    public static DigestFeed feeding(MessageDigest target) {
        DigestFeed feed = PER_THREAD.get();
        feed.target = target;
        feed.position = 0;
        return feed;
    }

    @Override
    public void putByte(int value) {
        ensure(1);
        scratch[position++] = (byte) value;
    }

    @Override
    public void putInt(int value) {
        ensure(Integer.BYTES);
        INT.set(scratch, position, value);
        position += Integer.BYTES;
    }

    @Override
    public void putLong(long value) {
        ensure(Long.BYTES);
        LONG.set(scratch, position, value);
        position += Long.BYTES;
    }

    @Override
    public void putBytes(byte[] bytes, int offset, int length) {
        if (length > SCRATCH / 2) {
            flush();
            target.update(bytes, offset, length);
        } else {
            ensure(length);
            System.arraycopy(bytes, offset, scratch, position, length);
            position += length;
        }
    }

    /** Hands what is buffered to the target digest. */
    public void flush() {
        if (position > 0) {
            target.update(scratch, 0, position);
            position = 0;
        }
    }

    private void ensure(int bytes) {
        if (position + bytes > SCRATCH) {
            flush();
        }
    }
}
