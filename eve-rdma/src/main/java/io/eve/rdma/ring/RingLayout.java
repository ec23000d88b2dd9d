package io.eve.rdma.ring;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The byte layout of one peer's region (little-endian, every field 8-byte aligned):
 *
 * <pre>
 * region: [0, 64) credit record, written by the peer | [64, 64 + ringBytes) ring, written by the peer
 * credit: long consumed | long acked | long sleep | long check = mix(consumed, acked, sleep)
 * entry:  long ringSeq | long msgSeq | int length | int CRC32C(ringSeq, msgSeq, length, payload)
 *         | payload, zero-padded to 8 | long canary = ringSeq
 * </pre>
 *
 * A wrap marker is an entry of length {@value #WRAP} without payload: the rest of the ring is skipped.
 * When fewer than {@link #MIN_ENTRY} bytes remain before the end, both sides skip them without a marker.
 * Immutable.
 */
public record RingLayout(int ringBytes, int maxPayload) {
    public static final int CREDIT_OFFSET = 0;
    public static final int CREDIT_BYTES = 32;
    public static final int RING_OFFSET = 64;
    public static final int HEADER = 24;
    public static final int MIN_ENTRY = HEADER + Long.BYTES;
    public static final int WRAP = -1;

    static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    public RingLayout {
        if (maxPayload < 0 || ringBytes % Long.BYTES != 0) {
            throw new IllegalArgumentException("ring bytes must be a multiple of 8 and max payload non-negative, got "
                    + ringBytes + " and " + maxPayload);
        }
        if (ringBytes < 2L * entrySize(maxPayload)) {
            throw new IllegalArgumentException("a ring of " + ringBytes + " bytes cannot hold two entries of "
                    + maxPayload + " payload bytes (" + entrySize(maxPayload) + " bytes each)");
        }
    }

    /** The region to register per peer: credit record and ring. */
    public int regionBytes() {
        return RING_OFFSET + ringBytes;
    }

    /** A zeroed, direct, little-endian buffer of {@link #regionBytes()}. */
    public ByteBuffer newRegion() {
        return ByteBuffer.allocateDirect(regionBytes()).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Bytes an entry with {@code payload} bytes occupies in the ring. */
    public static int entrySize(int payload) {
        return HEADER + padded(payload) + Long.BYTES;
    }

    static int padded(int payload) {
        return (payload + 7) & ~7;
    }

    static int checksum(long ringSeq, long msgSeq, int length, byte[] payload, int offset, int count) {
        ByteBuffer header = ByteBuffer.allocate(20).order(ByteOrder.LITTLE_ENDIAN);
        header.putLong(ringSeq).putLong(msgSeq).putInt(length).flip();
        CRC32C crc = new CRC32C();
        crc.update(header);
        crc.update(payload, offset, count);
        return (int) crc.getValue();
    }

    /** The check word of a credit record: a torn record (old and new bytes mixed) fails it. */
    static long creditCheck(long consumed, long acked, long sleep) {
        long mixed = (consumed * 0x9E3779B97F4A7C15L)
                ^ Long.rotateLeft(acked * 0xC2B2AE3D27D4EB4FL, 29)
                ^ Long.rotateLeft(sleep * 0x165667B19E3779F9L, 47);
        return mixed ^ (mixed >>> 31) ^ 0x5bd1e995L;
    }

    /** Encodes a credit record into a fresh buffer ready to write at {@link #CREDIT_OFFSET}. */
    static ByteBuffer credit(long consumed, long acked, long sleep) {
        ByteBuffer record = ByteBuffer.allocate(CREDIT_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        record.putLong(consumed)
                .putLong(acked)
                .putLong(sleep)
                .putLong(creditCheck(consumed, acked, sleep))
                .flip();
        return record;
    }
}
