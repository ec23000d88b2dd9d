package io.eve.storage;

import io.eve.storage.JournalFormat.Copy;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Finds the latest record of a {@link StateFile}'s bytes ({@link JournalFormat}), or refuses them. A pair
 * whose first copy is damaged is read from its second and the other way round; a damaged last pair with
 * nothing whole after it is a write torn by a crash, never reported durable, so the record before it stands;
 * anything else out of place (a header that fails its check, a file shorter than its header says, numbers
 * that skip, both copies of a pair damaged with records after them) is refused. Start-up only; any thread.
 */
final class JournalReader {
    private final byte[] bytes;
    private final Path file;
    private final String remedy;

    private JournalReader(byte[] bytes, Path file, String remedy) {
        this.bytes = bytes;
        this.file = file;
        this.remedy = remedy;
    }

    /** The contents of the latest record in {@code bytes}, the whole file {@code file}. */
    static byte[] latest(byte[] bytes, Path file, String remedy) {
        return new JournalReader(bytes, file, remedy).latest();
    }

    private byte[] latest() {
        int end = checkHeader();
        Copy latest = null;
        int position = JournalFormat.HEADER_BYTES;
        while (position < end) {
            Copy first = JournalFormat.copyAt(bytes, position, end);
            if (first != null) {
                checkNumber(latest, first);
                if (position + 2 * first.size() > end) {
                    throw corrupt(position, "record " + first.number() + " runs past the end of the file");
                }
                Copy second = JournalFormat.copyAt(bytes, position + first.size(), end);
                if (second != null && !first.sameBytes(bytes, second)) {
                    throw corrupt(position + first.size(), "the two copies of record " + first.number() + " differ");
                }
                // A damaged second copy: the first is whole and says the same.
                latest = first;
                position += 2 * first.size();
                continue;
            }
            if (JournalFormat.zeros(bytes, position, end)) {
                break; // the zeros written ahead: the clean end
            }
            int next = JournalFormat.nextCopy(bytes, position + 1, end);
            if (next < 0) {
                break; // a torn last write: nothing whole after it, and it was never reported durable
            }
            Copy found = JournalFormat.copyAt(bytes, next, end);
            boolean secondCopy =
                    next - position == found.size() && (latest == null || found.number() == latest.number() + 1);
            if (!secondCopy) {
                throw corrupt(
                        position,
                        "a damaged record with whole records after it (record " + found.number() + " at offset " + next
                                + ")");
            }
            latest = found; // the first copy was damaged; this, its second, is whole
            position = next + found.size();
        }
        if (latest == null) {
            throw corrupt(JournalFormat.HEADER_BYTES, "no whole record (every file is created with one)");
        }
        return latest.contents(bytes);
    }

    /** Checks the header and returns the size it gives. */
    private int checkHeader() {
        if (bytes.length < JournalFormat.HEADER_BYTES) {
            throw corrupt(0, "a file of " + bytes.length + " bytes is shorter than its header");
        }
        ByteBuffer header = ByteBuffer.wrap(bytes);
        int magic = header.getInt();
        int version = header.getInt();
        long size = header.getLong();
        int crc = header.getInt();
        if (magic != JournalFormat.MAGIC || version != JournalFormat.VERSION) {
            throw corrupt(0, "not a state journal of version " + JournalFormat.VERSION + " (bad magic or version)");
        }
        if (LogRecords.checksum(bytes, 0, JournalFormat.HEADER_BYTES - Integer.BYTES) != crc) {
            throw corrupt(0, "header checksum mismatch");
        }
        if (size != bytes.length) {
            throw corrupt(
                    Math.min(size, bytes.length),
                    "the header says " + size + " bytes, the file has " + bytes.length + " (cut short or extended)");
        }
        return bytes.length;
    }

    private void checkNumber(Copy latest, Copy copy) {
        if (latest != null && copy.number() != latest.number() + 1) {
            throw corrupt(
                    copy.offset(),
                    "record " + copy.number() + " where record " + (latest.number() + 1) + " was expected");
        }
    }

    private CorruptStorageException corrupt(long offset, String what) {
        return new CorruptStorageException(file, offset, what, remedy);
    }
}
