package io.eve.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.Optional;

/**
 * One small record that a node keeps replacing (a quorum verifier's view and best certificate, a quorum
 * replica's executed tail; docs/quorum.md, "Durable replicas and verifiers"), kept as an append-only journal
 * whose latest record counts ({@link JournalFormat}, decision 0032). A {@link #write} appends both copies of
 * the record into the zeros written ahead and forces the file's data: one force, no change of size or folder.
 * The first write of each instance, and a write that would not fit, starts a new file instead: a temporary
 * file with the header, the record and zeros up to its size, forced, renamed over the old one atomically, and
 * the folder forced, so that a crash leaves the old file or the new one, never a mix.
 *
 * <p>{@link #read} refuses damage with a {@link CorruptStorageException} naming the file (JournalReader says
 * which damage is repaired from the second copy and which counts as a torn write): the record is what the node
 * promised others, and a guess could break that promise. Not thread-safe: one thread writes.
 */
public final class StateFile implements AutoCloseable {
    /** The smallest file: room for about a thousand small records before a new file is started. */
    static final int MINIMUM_BYTES = 1 << 20;
    /** A new file holds at least this many records of the size that started it. */
    private static final int RECORDS_PER_FILE = 32;

    private final Path file;
    private final String remedy;
    private final FileSync sync;
    private final int minimumBytes;
    private FileChannel channel;
    private long position;
    private long size;
    private long number;
    private long forces;

    /**
     * @param file the record's path; its folder is created on the first write
     * @param remedy what an operator should do when the record is damaged (part of the refusal's message)
     */
    public StateFile(Path file, String remedy) {
        this(file, remedy, FileSync.FORCE, MINIMUM_BYTES);
    }

    StateFile(Path file, String remedy, FileSync sync) {
        this(file, remedy, sync, MINIMUM_BYTES);
    }

    StateFile(Path file, String remedy, FileSync sync, int minimumBytes) {
        this.file = Objects.requireNonNull(file, "file").toAbsolutePath();
        this.remedy = Objects.requireNonNull(remedy, "remedy");
        this.sync = sync;
        this.minimumBytes = minimumBytes;
    }

    /** The record's path. */
    public Path file() {
        return file;
    }

    /**
     * The latest record's contents, or empty when there is no file yet (a temporary file a crash left beside it
     * is ignored: its rename never happened). Reads the replaced file of version 1 too.
     *
     * @throws CorruptStorageException when the file is damaged beyond what a torn last write leaves and what
     *     the second copy of each record repairs
     * @throws StorageException when the file cannot be read
     */
    public Optional<byte[]> read() {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new StorageException("cannot read " + file + ": " + e, e);
        }
        if (bytes.length >= Integer.BYTES && ByteBuffer.wrap(bytes).getInt() == JournalFormat.LEGACY_MAGIC) {
            return Optional.of(readLegacy(bytes));
        }
        return Optional.of(JournalReader.latest(bytes, file, remedy));
    }

    /** Makes {@code contents} the latest record, durable before returning. */
    public void write(byte[] contents) throws IOException {
        ByteBuffer pair = JournalFormat.pair(number + 1, contents);
        if (channel == null || position + pair.remaining() > size) {
            startFile(pair);
        } else {
            long at = position;
            while (pair.hasRemaining()) {
                at += channel.write(pair, at);
            }
            force(channel);
            position = at;
        }
        number++;
    }

    /** Forces done so far: one per record, and one more (the folder's) for each new file. */
    long forces() {
        return forces;
    }

    private void startFile(ByteBuffer pair) throws IOException {
        long newSize = Math.max(minimumBytes, (long) RECORDS_PER_FILE * pair.remaining() + JournalFormat.HEADER_BYTES);
        Path folder = file.getParent();
        Files.createDirectories(folder);
        Path temporary = folder.resolve(file.getFileName() + ".tmp");
        FileChannel created = FileChannel.open(
                temporary, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
        try {
            long at = writeFully(created, JournalFormat.header(newSize), 0);
            long recordsEnd = writeFully(created, pair, at);
            ByteBuffer zeros = ByteBuffer.allocate(64 << 10);
            for (long filled = recordsEnd; filled < newSize; ) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), newSize - filled));
                filled = writeFully(created, zeros, filled);
            }
            force(created);
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            Checkpoints.forceDirectory(folder, sync);
            forces++;
            close();
            channel = created;
            position = recordsEnd;
            size = newSize;
        } catch (IOException | RuntimeException e) {
            created.close();
            throw e;
        }
    }

    private static long writeFully(FileChannel channel, ByteBuffer buffer, long at) throws IOException {
        long position = at;
        while (buffer.hasRemaining()) {
            position += channel.write(buffer, position);
        }
        return position;
    }

    private void force(FileChannel target) throws IOException {
        sync.force(target);
        forces++;
    }

    /** Version 1: {@code int magic | int version | int n | n bytes | int CRC32C(all before)}, one record. */
    private byte[] readLegacy(byte[] bytes) {
        int header = 3 * Integer.BYTES;
        if (bytes.length < header + Integer.BYTES) {
            throw corrupt(0, "a record of " + bytes.length + " bytes is shorter than its header and checksum");
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        if (buffer.getInt() != JournalFormat.LEGACY_MAGIC || buffer.getInt() != JournalFormat.LEGACY_VERSION) {
            throw corrupt(0, "not a state record of version 1 (bad magic or version)");
        }
        int length = buffer.getInt();
        if (length < 0 || length != bytes.length - header - Integer.BYTES) {
            throw corrupt(2 * Integer.BYTES, "length " + length + " does not fit a file of " + bytes.length + " bytes");
        }
        if (LogRecords.checksum(bytes, 0, header + length)
                != ByteBuffer.wrap(bytes, header + length, Integer.BYTES).getInt()) {
            throw corrupt(header + length, "checksum mismatch");
        }
        byte[] contents = new byte[length];
        System.arraycopy(bytes, header, contents, 0, length);
        return contents;
    }

    private CorruptStorageException corrupt(long offset, String what) {
        return new CorruptStorageException(file, offset, what, remedy);
    }

    /** Closes the open file, if any; a later write starts a new one. */
    @Override
    public void close() throws IOException {
        if (channel != null) {
            channel.close();
            channel = null;
        }
    }
}
