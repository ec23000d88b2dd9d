package io.eve.storage;

import java.nio.file.Path;

/**
 * A file of the storage directory fails its checksum, or holds what cannot be (a damaged disk, a bit flip,
 * an edited file), somewhere other than a torn last write. The replica refuses to start: serving from it
 * could serve state nobody agreed on. The message names the file and the offset, and how to restart from the
 * peers instead.
 */
public final class CorruptStorageException extends StorageException {
    private static final long serialVersionUID = 1L;

    private final transient Path file;
    private final long offset;

    CorruptStorageException(Path file, long offset, String what, Path nodeDir) {
        super(file + " is corrupt at offset " + offset + ": " + what + ". The replica will not start from it. To"
                + " restart it from its peers, move " + nodeDir + " away (keep it for inspection) and start the"
                + " node again: it will rejoin by full state transfer.");
        this.file = file;
        this.offset = offset;
    }

    /** A damaged file whose remedy is not a state transfer: {@code remedy} says what to do instead. */
    CorruptStorageException(Path file, long offset, String what, String remedy) {
        super(file + " is corrupt at offset " + offset + ": " + what + ". The node will not start from it. " + remedy);
        this.file = file;
        this.offset = offset;
    }

    /** The corrupt file. */
    public Path file() {
        return file;
    }

    /** Where in the file the damage was found. */
    public long offset() {
        return offset;
    }
}
