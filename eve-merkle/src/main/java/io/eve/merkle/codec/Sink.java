package io.eve.merkle.codec;

/**
 * Where a canonical encoding goes: straight into a digest ({@link HashSink}) or into a buffer for the
 * wire ({@link BufferSink}). One encoder serves both, so what is hashed and what is transferred can never
 * drift apart. Multi-byte values are big-endian.
 */
public interface Sink {
    void putByte(int value);

    void putInt(int value);

    void putLong(long value);

    /** Writes {@code length} bytes of {@code bytes} from {@code offset}, without a length prefix. */
    void putBytes(byte[] bytes, int offset, int length);

    default void putBoolean(boolean value) {
        putByte(value ? 1 : 0);
    }

    default void putShort(short value) {
        putByte(value >> 8);
        putByte(value);
    }

    default void putChar(char value) {
        putByte(value >> 8);
        putByte(value);
    }

    /** Floats and doubles go in as their bits with NaN canonicalised, so every NaN encodes alike. */
    default void putFloat(float value) {
        putInt(Float.floatToIntBits(value));
    }

    default void putDouble(double value) {
        putLong(Double.doubleToLongBits(value));
    }

    /** A length-prefixed byte array. */
    default void putByteArray(byte[] bytes) {
        putInt(bytes.length);
        putBytes(bytes, 0, bytes.length);
    }

    /** A length-prefixed string as UTF-16 code units: no charset work and no intermediate copy. */
    default void putString(String value) {
        int length = value.length();
        putInt(length);
        for (int i = 0; i < length; i++) {
            putChar(value.charAt(i));
        }
    }
}
