package io.eve.storage;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * The batches a quorum execution replica executed and whose commit is not in its log yet, kept so that a
 * restart of the whole cluster finds on some replica's disk every state the verifiers may have prepared
 * (docs/quorum.md, "Durable replicas and verifiers"): one {@link StateFile}, {@code executed.tail} in the
 * node's storage folder, a journal whose latest record counts, written with group commit by a {@link
 * StateFileWriter} each time the tail changes (a batch executed, a rollback, a transfer). The replica sends
 * its {@code Verify} for a batch only once a record holding that batch is durable.
 *
 * <p>The record also holds the highest view in which the replica numbered batches as primary: written before
 * the first batch of that view leaves, so that after a restart the replica never numbers a view's batches
 * a second time (docs/quorum.md, "Durable replicas and verifiers").
 *
 * <p>Layout of the record's contents: {@code int count}, then each batch as a log record (docs/operations.md,
 * "Files"), in order, then {@code long} the view led ({@code -1}: none; absent in files written before it
 * existed, read as none).
 */
public final class ExecutedTail implements AutoCloseable {
    /** The file's name in the node's folder. */
    public static final String FILE = "executed.tail";

    private static final String REMEDY = "Delete it to restart from the committed batches alone (safe: nothing"
            + " in it was acknowledged; after a restart of the whole cluster, the cluster may then wait for a batch"
            + " only this file held)";

    private final StateFile file;
    private final StateFileWriter writer;
    private boolean started;
    /** The records of the batches the last record held, by identity: a batch saved again is not encoded again. */
    private Map<LoggedBatch, ByteBuffer> encoded = new IdentityHashMap<>();

    /**
     * @param dir the node's storage folder
     * @param name how logs name the node
     * @param onDurable told, on the writer's thread, each record version once it is durable
     * @param onFailure told, on the writer's thread, when a write fails (the node must stop: its verifications
     *     would wait forever)
     */
    public ExecutedTail(Path dir, String name, LongConsumer onDurable, Consumer<Throwable> onFailure) {
        this.file = new StateFile(Objects.requireNonNull(dir, "dir").resolve(FILE), REMEDY);
        this.writer = new StateFileWriter(file, name + " executed tail", onDurable, onFailure);
    }

    /** The file. */
    public Path file() {
        return file.file();
    }

    /** What the latest record holds: the executed batches, in order, and the view led ({@code -1}: none). */
    public record Contents(List<LoggedBatch> batches, long ledView) {
        public Contents {
            batches = List.copyOf(batches);
        }
    }

    /**
     * The batches the file holds, in order (empty without a file).
     *
     * @throws CorruptStorageException when the file or a batch in it is damaged
     */
    public List<LoggedBatch> read() {
        return contents().batches();
    }

    /**
     * What the file holds (no batches and no view led without a file).
     *
     * @throws CorruptStorageException when the file or a batch in it is damaged
     */
    public Contents contents() {
        byte[] bytes = file.read().orElse(null);
        if (bytes == null) {
            return new Contents(List.of(), -1);
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        List<LoggedBatch> batches = new ArrayList<>();
        long ledView;
        try {
            int count = buffer.getInt();
            for (int i = 0; i < count; i++) {
                int length = buffer.getInt();
                buffer.getInt(); // the record's own checksum: the file's covers it
                batches.add(LogRecords.decode(bytes, buffer.position(), length));
                buffer.position(buffer.position() + length);
            }
            ledView = buffer.remaining() == 0 ? -1 : buffer.getLong();
            if (ledView < -1 || buffer.hasRemaining()) {
                throw new IllegalStateException(
                        "a view led of " + ledView + " and " + buffer.remaining() + " bytes after it");
            }
        } catch (RuntimeException e) {
            throw new CorruptStorageException(file.file(), buffer.position(), e.toString(), REMEDY);
        }
        return new Contents(batches, ledView);
    }

    /** Queues {@code batches} (in order) as record version {@code version} with no view led; versions increase. */
    public void save(long version, List<LoggedBatch> batches) {
        save(version, batches, -1);
    }

    /**
     * Queues {@code batches} (in order) and {@code ledView} as record version {@code version}; versions
     * increase.
     */
    public synchronized void save(long version, List<LoggedBatch> batches, long ledView) {
        // A batch stays in the tail for several records (until a force of the log covers it): it is encoded
        // for the first, and the others copy those bytes.
        Map<LoggedBatch, ByteBuffer> records = new IdentityHashMap<>();
        int size = Integer.BYTES + Long.BYTES;
        for (LoggedBatch batch : batches) {
            ByteBuffer record = encoded.get(batch);
            if (record == null) {
                record = LogRecords.encode(batch);
            }
            records.put(batch, record);
            size += record.remaining();
        }
        encoded = records;
        ByteBuffer contents = ByteBuffer.allocate(size).putInt(batches.size());
        for (LoggedBatch batch : batches) {
            contents.put(records.get(batch).duplicate());
        }
        contents.putLong(ledView);
        if (!started) {
            started = true;
            writer.start();
        }
        writer.submit(version, contents.array());
    }

    /** Forces done so far. */
    public long writes() {
        return writer.writes();
    }

    /** Writes the record pending, then stops the writer. */
    @Override
    public void close() {
        writer.close();
    }
}
