package io.eve.storage;

import java.nio.ByteBuffer;

/**
 * The layout of a {@link StateFile} (docs/operations.md, "Files"):
 *
 * <pre>
 * header: int magic "EVSJ" | int version 2 | long size (of the whole file) | int CRC32C(magic, version, size)
 * then pairs of copies of one record, back to back, then zeros up to size:
 * copy:   int n | long number | n bytes | int CRC32C(n, number, bytes)
 * </pre>
 *
 * The file is written full of zeros when it is created, so that later writes change no file size and a force
 * is one data write; each record is written twice in one write, so that damage to one copy is repaired from
 * the other and only a damaged pair at the very end can pass for a torn write. Record numbers rise by one
 * along the file. Stateless; any thread.
 */
final class JournalFormat {
    static final int MAGIC = 0x4556534A; // "EVSJ"
    static final int VERSION = 2;
    /** The replaced file of version 1 ("EVSF"), still read so that a node upgraded in place keeps its record. */
    static final int LEGACY_MAGIC = 0x45565346;

    static final int LEGACY_VERSION = 1;
    static final int HEADER_BYTES = 2 * Integer.BYTES + Long.BYTES + Integer.BYTES;
    /** Length, number and checksum around the contents of one copy. */
    static final int COPY_OVERHEAD = Integer.BYTES + Long.BYTES + Integer.BYTES;

    private JournalFormat() {}

    static ByteBuffer header(long size) {
        ByteBuffer buffer = ByteBuffer.allocate(HEADER_BYTES);
        buffer.putInt(MAGIC).putInt(VERSION).putLong(size);
        buffer.putInt(LogRecords.checksum(buffer.array(), 0, HEADER_BYTES - Integer.BYTES));
        return buffer.flip();
    }

    /** Both copies of record {@code number}, ready to write. */
    static ByteBuffer pair(long number, byte[] contents) {
        int copy = COPY_OVERHEAD + contents.length;
        ByteBuffer buffer = ByteBuffer.allocate(2 * copy);
        buffer.putInt(contents.length).putLong(number).put(contents);
        buffer.putInt(LogRecords.checksum(buffer.array(), 0, copy - Integer.BYTES));
        buffer.put(buffer.array(), 0, copy);
        return buffer.flip();
    }

    /** One copy found whole at {@code offset}: its number, where its contents are, and its size. */
    record Copy(int offset, long number, int length) {
        int size() {
            return COPY_OVERHEAD + length;
        }

        byte[] contents(byte[] bytes) {
            byte[] contents = new byte[length];
            System.arraycopy(bytes, offset + Integer.BYTES + Long.BYTES, contents, 0, length);
            return contents;
        }

        boolean sameBytes(byte[] bytes, Copy other) {
            return length == other.length
                    && java.util.Arrays.equals(
                            bytes, offset, offset + size(), bytes, other.offset, other.offset + other.size());
        }
    }

    /** The copy whose length fits before {@code end} and whose checksum matches at {@code offset}, or null. */
    static Copy copyAt(byte[] bytes, int offset, int end) {
        if (end - offset < COPY_OVERHEAD) {
            return null;
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes, offset, end - offset);
        int length = buffer.getInt();
        long number = buffer.getLong();
        if (length < 0 || length > end - offset - COPY_OVERHEAD || number < 1) {
            return null;
        }
        int crc = ByteBuffer.wrap(bytes, offset + COPY_OVERHEAD - Integer.BYTES + length, Integer.BYTES)
                .getInt();
        if (LogRecords.checksum(bytes, offset, COPY_OVERHEAD - Integer.BYTES + length) != crc) {
            return null;
        }
        return new Copy(offset, number, length);
    }

    /** The first offset from {@code from} on where a whole copy starts, or -1. Start-up only, after damage. */
    static int nextCopy(byte[] bytes, int from, int end) {
        for (int at = from; at <= end - COPY_OVERHEAD; at++) {
            if (copyAt(bytes, at, end) != null) {
                return at;
            }
        }
        return -1;
    }

    static boolean zeros(byte[] bytes, int from, int end) {
        for (int i = from; i < end; i++) {
            if (bytes[i] != 0) {
                return false;
            }
        }
        return true;
    }
}
