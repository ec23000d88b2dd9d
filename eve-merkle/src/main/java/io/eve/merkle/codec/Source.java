package io.eve.merkle.codec;

/**
 * Reads what a {@link BufferSink} wrote, checking every length against the bytes that remain before
 * allocating anything, so a hostile or truncated input fails with a {@link MalformedInputException}
 * instead of an exhausted heap. Not thread-safe.
 */
public final class Source {
    private final byte[] bytes;
    private int position;

    public Source(byte[] bytes) {
        this.bytes = bytes;
    }

    public int remaining() {
        return bytes.length - position;
    }

    public boolean hasRemaining() {
        return position < bytes.length;
    }

    public byte getByte() {
        need(1, "byte");
        return bytes[position++];
    }

    public boolean getBoolean() {
        byte b = getByte();
        if (b != 0 && b != 1) {
            throw new MalformedInputException("a boolean is 0 or 1, got " + b + " at offset " + (position - 1));
        }
        return b == 1;
    }

    public short getShort() {
        need(2, "short");
        short value = (short) (((bytes[position] & 0xff) << 8) | (bytes[position + 1] & 0xff));
        position += 2;
        return value;
    }

    public char getChar() {
        return (char) getShort();
    }

    public int getInt() {
        need(4, "int");
        int value = 0;
        for (int i = 0; i < 4; i++) {
            value = (value << 8) | (bytes[position++] & 0xff);
        }
        return value;
    }

    public long getLong() {
        need(8, "long");
        long value = 0;
        for (int i = 0; i < 8; i++) {
            value = (value << 8) | (bytes[position++] & 0xff);
        }
        return value;
    }

    public float getFloat() {
        return Float.intBitsToFloat(getInt());
    }

    public double getDouble() {
        return Double.longBitsToDouble(getLong());
    }

    /**
     * Reads a count of items each at least {@code minBytesPerItem} long, refusing counts that the
     * remaining input cannot possibly hold.
     */
    public int getCount(int minBytesPerItem, String what) {
        int count = getInt();
        if (count < 0) {
            throw new MalformedInputException("negative " + what + " count " + count);
        }
        if ((long) count * Math.max(1, minBytesPerItem) > remaining()) {
            throw new MalformedInputException(
                    what + " count " + count + " exceeds the " + remaining() + " bytes left at offset " + position);
        }
        return count;
    }

    public byte[] getByteArray() {
        int length = getCount(1, "byte array length");
        byte[] out = new byte[length];
        System.arraycopy(bytes, position, out, 0, length);
        position += length;
        return out;
    }

    public String getString() {
        int length = getCount(2, "string length");
        char[] chars = new char[length];
        for (int i = 0; i < length; i++) {
            chars[i] = getChar();
        }
        return new String(chars);
    }

    private void need(int count, String what) {
        if (remaining() < count) {
            throw new MalformedInputException(
                    "input ends at offset " + position + " while reading a " + what + " (" + count + " bytes)");
        }
    }
}
