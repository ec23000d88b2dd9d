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
 * One small record that a node replaces as a whole (a quorum verifier's view and best certificate,
 * docs/quorum.md, "Durable verifiers"): {@code int magic | int version | int n | n bytes | int CRC32C(all
 * before)}. Each {@link #write} writes a temporary file beside it, forces it, renames it over the old one
 * atomically and forces the folder, so that a crash leaves the old record or the new one, never a mix.
 *
 * <p>{@link #read} refuses a damaged record with a {@link CorruptStorageException} naming the file: the
 * record is what the node promised others, and a guess could break that promise. Not thread-safe: one
 * thread writes.
 */
public final class StateFile {
    private static final int MAGIC = 0x45565346; // "EVSF"
    private static final int VERSION = 1;
    private static final int HEADER = 3 * Integer.BYTES;

    private final Path file;
    private final String remedy;
    private final FileSync sync;

    /**
     * @param file the record's path; its folder is created on the first write
     * @param remedy what an operator should do when the record is damaged (part of the refusal's message)
     */
    public StateFile(Path file, String remedy) {
        this(file, remedy, FileSync.FORCE);
    }

    StateFile(Path file, String remedy, FileSync sync) {
        this.file = Objects.requireNonNull(file, "file").toAbsolutePath();
        this.remedy = Objects.requireNonNull(remedy, "remedy");
        this.sync = sync;
    }

    /** The record's path. */
    public Path file() {
        return file;
    }

    /**
     * The record's contents, or empty when there is no record yet (a temporary file a crash left beside it is
     * ignored: its rename never happened).
     *
     * @throws CorruptStorageException when the record is damaged (bad magic or version, a length that does not
     *     fit, a checksum that differs)
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
        if (bytes.length < HEADER + Integer.BYTES) {
            throw corrupt(0, "a record of " + bytes.length + " bytes is shorter than its header and checksum");
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        if (buffer.getInt() != MAGIC || buffer.getInt() != VERSION) {
            throw corrupt(0, "not a state record of version " + VERSION + " (bad magic or version)");
        }
        int length = buffer.getInt();
        if (length < 0 || length != bytes.length - HEADER - Integer.BYTES) {
            throw corrupt(2 * Integer.BYTES, "length " + length + " does not fit a file of " + bytes.length + " bytes");
        }
        int expected = LogRecords.checksum(bytes, 0, HEADER + length);
        int found = ByteBuffer.wrap(bytes, HEADER + length, Integer.BYTES).getInt();
        if (expected != found) {
            throw corrupt(HEADER + length, "checksum mismatch");
        }
        byte[] contents = new byte[length];
        System.arraycopy(bytes, HEADER, contents, 0, length);
        return Optional.of(contents);
    }

    /** Replaces the record with {@code contents} and makes it durable before returning. */
    public void write(byte[] contents) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(HEADER + contents.length + Integer.BYTES);
        buffer.putInt(MAGIC).putInt(VERSION).putInt(contents.length).put(contents);
        buffer.putInt(LogRecords.checksum(buffer.array(), 0, HEADER + contents.length));
        Path folder = file.getParent();
        Files.createDirectories(folder);
        Path temporary = folder.resolve(file.getFileName() + ".tmp");
        try (FileChannel channel = FileChannel.open(
                temporary, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            buffer.flip();
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            sync.force(channel);
        }
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        Checkpoints.forceDirectory(folder, sync);
    }

    private CorruptStorageException corrupt(long offset, String what) {
        return new CorruptStorageException(file, offset, what, remedy);
    }
}
