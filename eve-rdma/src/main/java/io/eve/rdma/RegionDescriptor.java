package io.eve.rdma;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * What a peer needs to write into a registered region: where the owner's fabric listens ({@code
 * locator}, e.g. {@code 10.0.0.7:7471} for DiSNI), the region's address and length, and the remote key of
 * the registration made for that peer. {@code epoch} changes whenever the owner registers anew, so a
 * peer can tell a fresh region (an empty ring) from the one it was writing.
 */
public record RegionDescriptor(String locator, long address, int length, int rkey, long epoch) {
    private static final int MAX_LOCATOR_BYTES = 255;

    public RegionDescriptor {
        Objects.requireNonNull(locator, "locator");
        if (length <= 0) {
            throw new IllegalArgumentException("a region length must be positive, got " + length);
        }
        if (locator.getBytes(StandardCharsets.UTF_8).length > MAX_LOCATOR_BYTES) {
            throw new IllegalArgumentException("a locator is at most " + MAX_LOCATOR_BYTES + " bytes: " + locator);
        }
    }

    /** Bytes of {@link #encode()}. */
    public int encodedSize() {
        return 1 + locator.getBytes(StandardCharsets.UTF_8).length + 8 + 4 + 4 + 8;
    }

    /** {@code byte locatorLength | locator (UTF-8) | long address | int length | int rkey | long epoch}. */
    public byte[] encode() {
        byte[] name = locator.getBytes(StandardCharsets.UTF_8);
        ByteBuffer out = ByteBuffer.allocate(encodedSize());
        out.put((byte) name.length)
                .put(name)
                .putLong(address)
                .putInt(length)
                .putInt(rkey)
                .putLong(epoch);
        return out.array();
    }

    /**
     * Reads a descriptor from {@code in}, which comes from the network: every length is checked.
     *
     * @throws IllegalArgumentException saying what was malformed
     */
    public static RegionDescriptor decode(ByteBuffer in) {
        if (in.remaining() < 1) {
            throw new IllegalArgumentException("a region descriptor needs at least 1 byte, got 0");
        }
        int nameLength = Byte.toUnsignedInt(in.get());
        int needed = nameLength + 8 + 4 + 4 + 8;
        if (in.remaining() < needed) {
            throw new IllegalArgumentException("a region descriptor with a " + nameLength + "-byte locator needs "
                    + needed + " more bytes, got " + in.remaining());
        }
        byte[] name = new byte[nameLength];
        in.get(name);
        return new RegionDescriptor(
                new String(name, StandardCharsets.UTF_8), in.getLong(), in.getInt(), in.getInt(), in.getLong());
    }
}
