package io.eve.storage;

import io.eve.execution.Token;
import io.eve.merkle.StateDelta;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Checkpoint files and the manifest that lists the chain in force (docs/operations.md, "Files").
 *
 * <pre>
 * checkpoint-&lt;seq&gt;.ckpt: int magic "EVEC" | int version | long view | byte full | token (as in the log) |
 *                        long base | int n | n bytes of the state delta | int CRC32C(all before)
 * MANIFEST:              int magic "EVEM" | int version | int count | count x (long base, long seq, byte full,
 *                        long size) | int CRC32C(all before)
 * </pre>
 *
 * The chain is one full checkpoint (a delta from the initial state, version 0) and the incremental ones after
 * it, each from the one before. The manifest is replaced atomically: written beside, forced, renamed over,
 * and the directory forced.
 *
 * <p>Confined to one thread, like {@link BatchLog}.
 */
final class Checkpoints {
    static final int MAGIC = 0x45564543;
    static final int MANIFEST_MAGIC = 0x4556454D;
    static final int VERSION = 1;
    static final String MANIFEST = "MANIFEST";
    private static final int MAX_CHAIN = 100_000;

    /** One checkpoint of the chain. */
    record Entry(long base, long seq, boolean full, long size) {}

    /** A checkpoint as read back. */
    record Loaded(long view, Token token, StateDelta delta) {}

    private final Path dir;
    private final FileSync sync;
    private List<Entry> chain = List.of();

    Checkpoints(Path dir, FileSync sync) {
        this.dir = dir;
        this.sync = sync;
    }

    static Path file(Path dir, long seq) {
        return dir.resolve(String.format("checkpoint-%020d.ckpt", seq));
    }

    List<Entry> chain() {
        return chain;
    }

    /** Writes and forces checkpoint file; not part of the chain until {@link #install}. */
    Entry write(long view, boolean full, Token token, StateDelta delta) throws IOException {
        byte[] payload = delta.payload();
        ByteBuffer buffer = ByteBuffer.allocate(
                4 * Integer.BYTES + Long.BYTES + 1 + Long.BYTES + 4 * 32 + Long.BYTES + payload.length + Integer.BYTES);
        buffer.putInt(MAGIC).putInt(VERSION).putLong(view).put((byte) (full ? 1 : 0));
        LogRecords.writeToken(buffer, token);
        buffer.putLong(delta.baseSeq()).putInt(payload.length).put(payload);
        buffer.putInt(LogRecords.checksum(buffer.array(), 0, buffer.position()));
        Path path = file(dir, token.seq());
        Files.deleteIfExists(path); // a checkpoint discarded after a rollback, taken again
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            buffer.flip();
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            sync.force(channel);
        }
        return new Entry(delta.baseSeq(), token.seq(), full, buffer.capacity());
    }

    /** Makes {@code entry} the end of the chain (a full one replaces it) and deletes the files left out. */
    void install(Entry entry) throws IOException {
        List<Entry> next = new ArrayList<>(entry.full() ? List.of() : chain);
        next.add(entry);
        writeManifest(next);
        List<Entry> dropped = new ArrayList<>(chain);
        dropped.removeAll(next);
        chain = List.copyOf(next);
        for (Entry old : dropped) {
            Files.deleteIfExists(file(dir, old.seq()));
        }
    }

    /** Deletes the file of a checkpoint that will never be installed. */
    void discard(long seq) throws IOException {
        if (chain.stream().noneMatch(entry -> entry.seq() == seq)) {
            Files.deleteIfExists(file(dir, seq));
        }
    }

    private void writeManifest(List<Entry> entries) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(4 * Integer.BYTES + entries.size() * (3 * Long.BYTES + 1));
        buffer.putInt(MANIFEST_MAGIC).putInt(VERSION).putInt(entries.size());
        for (Entry entry : entries) {
            buffer.putLong(entry.base())
                    .putLong(entry.seq())
                    .put((byte) (entry.full() ? 1 : 0))
                    .putLong(entry.size());
        }
        buffer.putInt(LogRecords.checksum(buffer.array(), 0, buffer.position()));
        Path temp = dir.resolve(MANIFEST + ".tmp");
        try (FileChannel channel = FileChannel.open(
                temp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            buffer.flip();
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            sync.force(channel);
        }
        Files.move(temp, dir.resolve(MANIFEST), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        forceDirectory(dir, sync);
    }

    /** Forces the directory itself, so that a created, renamed or deleted entry survives a crash. */
    static void forceDirectory(Path dir, FileSync sync) throws IOException {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            sync.force(channel);
        }
    }

    /**
     * Reads the manifest (an empty chain without one), checks it, and removes what a crash left: the
     * manifest's temporary copy and checkpoint files outside the chain.
     */
    void load(boolean readOnly) throws IOException {
        Path manifest = dir.resolve(MANIFEST);
        if (!readOnly) {
            Files.deleteIfExists(dir.resolve(MANIFEST + ".tmp"));
        }
        if (Files.exists(manifest)) {
            chain = readManifest(manifest);
        }
        if (!readOnly) {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path path : files.toList()) {
                    String name = path.getFileName().toString();
                    if (name.matches("checkpoint-\\d{20}\\.ckpt")
                            && chain.stream()
                                    .noneMatch(entry -> file(dir, entry.seq()).equals(path))) {
                        Files.delete(path);
                    }
                }
            }
        }
    }

    private List<Entry> readManifest(Path manifest) throws IOException {
        byte[] bytes = Files.readAllBytes(manifest);
        int end = bytes.length - Integer.BYTES;
        if (end < 3 * Integer.BYTES) {
            throw corrupt(manifest, 0, "a manifest of " + bytes.length + " bytes is too short");
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        if (buffer.getInt(end) != LogRecords.checksum(bytes, 0, end)) {
            throw corrupt(manifest, end, "manifest checksum mismatch (over bytes 0.." + end + ")");
        }
        if (buffer.getInt() != MANIFEST_MAGIC || buffer.getInt() != VERSION) {
            throw corrupt(manifest, 0, "not a manifest of version " + VERSION);
        }
        int count = buffer.getInt();
        if (count < 0 || count > MAX_CHAIN || count * (3L * Long.BYTES + 1) != end - buffer.position()) {
            throw corrupt(manifest, 8, "a chain of " + count + " checkpoints does not fill the manifest");
        }
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int at = buffer.position();
            Entry entry = new Entry(buffer.getLong(), buffer.getLong(), buffer.get() == 1, buffer.getLong());
            Entry before = entries.isEmpty() ? null : entries.get(entries.size() - 1);
            boolean fits =
                    before == null ? entry.full() && entry.base() == 0 : !entry.full() && entry.base() == before.seq();
            if (!fits || entry.seq() <= entry.base()) {
                throw corrupt(manifest, at, "checkpoint " + i + " (" + entry + ") does not continue the chain");
            }
            entries.add(entry);
        }
        return List.copyOf(entries);
    }

    /** Reads a checkpoint of the chain and checks it against its checksum and its manifest entry. */
    Loaded read(Entry entry) throws IOException {
        Path path = file(dir, entry.seq());
        if (!Files.exists(path)) {
            throw corrupt(dir.resolve(MANIFEST), 0, "the manifest lists " + path.getFileName() + ", which is missing");
        }
        byte[] bytes = Files.readAllBytes(path);
        int end = bytes.length - Integer.BYTES;
        int fixed = 2 * Integer.BYTES + Long.BYTES + 1 + Long.BYTES + 4 * 32 + Long.BYTES + Integer.BYTES;
        if (end < fixed) {
            throw corrupt(path, 0, "a checkpoint of " + bytes.length + " bytes is too short");
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        if (buffer.getInt(end) != LogRecords.checksum(bytes, 0, end)) {
            throw corrupt(path, end, "checkpoint checksum mismatch (over bytes 0.." + end + ")");
        }
        if (buffer.getInt() != MAGIC || buffer.getInt() != VERSION) {
            throw corrupt(path, 0, "not a checkpoint of version " + VERSION);
        }
        try {
            long view = buffer.getLong();
            boolean full = buffer.get() == 1;
            Token token = LogRecords.readToken(buffer);
            long base = buffer.getLong();
            int length = buffer.getInt();
            if (length != end - buffer.position()) {
                throw new IllegalArgumentException(
                        "the delta is said to be " + length + " bytes, " + (end - buffer.position()) + " remain");
            }
            if (full != entry.full() || base != entry.base() || token.seq() != entry.seq()) {
                throw new IllegalArgumentException("it is not the checkpoint the manifest lists (" + entry + ")");
            }
            byte[] payload = new byte[length];
            buffer.get(payload);
            return new Loaded(view, token, new StateDelta(base, token.seq(), payload));
        } catch (IllegalArgumentException e) {
            throw corrupt(path, buffer.position(), e.getMessage());
        }
    }

    private CorruptStorageException corrupt(Path file, long offset, String what) {
        return new CorruptStorageException(file, offset, what, dir);
    }
}
