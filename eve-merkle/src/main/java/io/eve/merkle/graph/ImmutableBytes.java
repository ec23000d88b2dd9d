package io.eve.merkle.graph;

import java.util.Arrays;

/**
 * A byte string that cannot change once made: the trackable replacement for a {@code byte[]} field of a
 * {@link Replicated} class. Writes to a {@code byte[]}'s elements do not go through a field write, so the
 * build step cannot track them and registration refuses the field; a field of this type can only be
 * changed by assigning a new value, which the build step tracks like any other field write.
 *
 * <p>The bytes are copied on the way in ({@link #copyOf}) and on the way out ({@link #toByteArray}), so
 * no caller ever holds the array inside. A field of this type is encoded exactly as a {@code byte[]}
 * field holding the same bytes (docs/state-format.md), so switching a field from {@code byte[]} to this
 * type leaves the state's digests unchanged. Immutable and thread-safe.
 */
public final class ImmutableBytes {
    private static final ImmutableBytes EMPTY = new ImmutableBytes(new byte[0]);

    private final byte[] bytes;

    private ImmutableBytes(byte[] bytes) {
        this.bytes = bytes;
    }

    /**
     * A value holding a copy of {@code bytes}; later changes to {@code bytes} do not show.
     *
     * @param bytes the content
     * @return the value
     * @throws IllegalArgumentException if {@code bytes} is {@code null}
     */
    public static ImmutableBytes copyOf(byte[] bytes) {
        if (bytes == null) {
            throw new IllegalArgumentException("ImmutableBytes.copyOf needs an array, got null"
                    + " (a field of type ImmutableBytes may itself be null)");
        }
        return bytes.length == 0 ? EMPTY : new ImmutableBytes(bytes.clone());
    }

    /** Takes {@code bytes} without copying; only for arrays nobody else holds (a freshly decoded one). */
    static ImmutableBytes adopt(byte[] bytes) {
        return bytes.length == 0 ? EMPTY : new ImmutableBytes(bytes);
    }

    /** The array inside, for encoding; never handed to application code. */
    byte[] array() {
        return bytes;
    }

    /** The number of bytes. */
    public int length() {
        return bytes.length;
    }

    /**
     * The byte at {@code index}.
     *
     * @param index from 0 to {@code length() - 1}
     * @return the byte
     * @throws IndexOutOfBoundsException if {@code index} is outside the value
     */
    public byte byteAt(int index) {
        if (index < 0 || index >= bytes.length) {
            throw new IndexOutOfBoundsException(
                    "byte " + index + " of a " + bytes.length + "-byte ImmutableBytes; indexes run from 0");
        }
        return bytes[index];
    }

    /** A new array holding the bytes; the caller may change it freely. */
    public byte[] toByteArray() {
        return bytes.clone();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ImmutableBytes that && Arrays.equals(bytes, that.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return "ImmutableBytes[" + bytes.length + " bytes]";
    }
}
