package io.eve.merkle;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * A 32-byte SHA-256 digest: a state root, a leaf digest or a node digest.
 *
 * <p>Immutable and thread-safe: the bytes are copied on the way in and on the way out.
 */
public final class Digest implements Comparable<Digest> {
    /** Length of every digest, in bytes. */
    public static final int LENGTH = 32;

    /** The digest of empty state: 32 zero bytes. An empty subtree and a free leaf both hash to it. */
    public static final Digest ZERO = new Digest(new byte[LENGTH]);

    private final byte[] bytes;

    private Digest(byte[] bytes) {
        this.bytes = bytes;
    }

    /** Copies {@code bytes}, which must hold exactly {@link #LENGTH} bytes. */
    public static Digest of(byte[] bytes) {
        if (bytes.length != LENGTH) {
            throw new IllegalArgumentException("a digest has " + LENGTH + " bytes, got " + bytes.length);
        }
        return new Digest(bytes.clone());
    }

    /** Copies {@link #LENGTH} bytes of {@code source} starting at {@code offset}. */
    public static Digest of(byte[] source, int offset) {
        if (offset < 0 || offset > source.length - LENGTH) {
            throw new IllegalArgumentException(
                    "a digest at offset " + offset + " does not fit in " + source.length + " bytes");
        }
        return new Digest(Arrays.copyOfRange(source, offset, offset + LENGTH));
    }

    /** Parses 64 hexadecimal characters. */
    public static Digest fromHex(String hex) {
        return of(HexFormat.of().parseHex(hex));
    }

    /** A copy of the 32 bytes. */
    public byte[] toByteArray() {
        return bytes.clone();
    }

    /** Writes the 32 bytes into {@code target} at {@code offset}. */
    public void copyTo(byte[] target, int offset) {
        System.arraycopy(bytes, 0, target, offset, LENGTH);
    }

    public boolean isZero() {
        return equals(ZERO);
    }

    public String toHex() {
        return HexFormat.of().formatHex(bytes);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Digest that && Arrays.equals(bytes, that.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public int compareTo(Digest other) {
        return Arrays.compareUnsigned(bytes, other.bytes);
    }

    /** The first 8 bytes in hex, enough to tell digests apart in logs. */
    @Override
    public String toString() {
        return toHex().substring(0, 16);
    }
}
