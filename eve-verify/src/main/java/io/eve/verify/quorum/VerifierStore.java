package io.eve.verify.quorum;

import io.eve.execution.Token;
import io.eve.protocol.Message;
import io.eve.protocol.Message.ViewChange;
import io.eve.storage.CorruptStorageException;
import io.eve.storage.StateFile;
import io.eve.storage.StateFileWriter;
import io.eve.transport.wire.FrameCodec;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A verifier's memory on disk (docs/quorum.md, "Durable verifiers"): one {@link StateFile}, {@code
 * verifier.state} in the node's storage folder, written with group commit by a {@link StateFileWriter}. The
 * record is the verifier's remembered view and best certificate in the form of a {@code ViewChange} frame
 * (the wire codec's layout, evidence and authenticators included), so that what the verifier reports after a
 * restart is byte for byte what it proved before.
 *
 * <p>Opening reads and checks the file: a damaged one, or one written by another verifier, is refused with an
 * exception naming the file, before the node starts. Closed with the node's runtime ({@code closeWith}).
 */
public final class VerifierStore implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(VerifierStore.class);
    private static final String REMEDY = "Restore the file from a backup. Deleting it is safe only while the other"
            + " verifiers of the cluster run (this one then rejoins them as a verifier restarted without its state,"
            + " docs/quorum.md, \"Rejoining\"); never after a restart of the whole cluster";

    private final StateFile file;
    private final int self;
    private final FrameCodec codec = new FrameCodec(64 << 20);
    private final VerifierMemory.Remembered loaded;
    private volatile StateFileWriter writer;
    private volatile boolean closed;

    private VerifierStore(StateFile file, int self) {
        this.file = file;
        this.self = self;
        this.loaded = file.read().map(this::decode).orElse(null);
    }

    /**
     * Opens the memory of verifier {@code self} in {@code folder} (created on the first write) and reads what it
     * holds.
     *
     * @throws CorruptStorageException when the file is damaged or belongs to another verifier
     */
    public static VerifierStore open(Path folder, int self) {
        Objects.requireNonNull(folder, "folder");
        return new VerifierStore(new StateFile(folder.resolve("verifier.state"), REMEDY), self);
    }

    /** The file this store reads and writes. */
    public Path file() {
        return file.file();
    }

    /** Whether the file held a record when it was opened: the verifier restarts from it. */
    public boolean recovered() {
        return loaded != null;
    }

    /** The view the file remembered when it was opened, -1 without a record. */
    public long recoveredView() {
        return loaded == null ? -1 : loaded.view();
    }

    /** Forces done so far (one per group of records saved while the previous write ran). */
    public long writes() {
        StateFileWriter current = writer;
        return current == null ? 0 : current.writes();
    }

    /**
     * The memory a verifier uses: saves go to the writer's thread; {@code onDurable} hears each durable version
     * there and must pass it to the verifier's own thread.
     */
    VerifierMemory memory(String name, Supplier<LongConsumer> onDurable) {
        return new VerifierMemory() {
            @Override
            public VerifierMemory.Remembered load() {
                return loaded;
            }

            @Override
            public void save(VerifierMemory.Remembered record, long version) {
                if (closed) {
                    return;
                }
                if (writer == null) {
                    writer = new StateFileWriter(
                            file,
                            name,
                            durable -> onDurable.get().accept(durable),
                            failure -> LOG.error(
                                    "{}: cannot write {}; its messages stay held (it takes no further part)",
                                    name,
                                    file.file(),
                                    failure));
                    writer.start();
                }
                writer.submit(version, encode(record));
            }
        };
    }

    private byte[] encode(VerifierMemory.Remembered record) {
        Certificate best = record.best();
        ViewChange frame = best == null
                ? new ViewChange(record.view(), self, -1, ViewChanges.ORIGIN, java.util.List.of())
                : new ViewChange(record.view(), self, best.view(), best.token(), best.evidence());
        return codec.encode(frame);
    }

    private VerifierMemory.Remembered decode(byte[] bytes) {
        Message message;
        try {
            message = codec.decode(bytes);
        } catch (RuntimeException e) { // FrameException among them
            throw new IllegalStateException(
                    file.file() + " holds no verifier record that decodes (" + e.getMessage() + "). " + REMEDY, e);
        }
        if (!(message instanceof ViewChange record) || record.verifier() != self) {
            throw new IllegalStateException(file.file() + " is not the memory of verifier " + self + " (it holds "
                    + describe(message) + "). " + REMEDY);
        }
        Token token = record.certificate();
        Certificate best = record.certificateView() < 0
                ? null
                : new Certificate(record.certificateView(), token, record.evidence());
        return new VerifierMemory.Remembered(record.newView(), best);
    }

    private static String describe(Message message) {
        return message instanceof ViewChange change
                ? "verifier " + change.verifier() + "'s"
                : message.getClass().getSimpleName();
    }

    /** Writes the record pending, if any, and stops the writer. */
    @Override
    public void close() {
        closed = true;
        StateFileWriter current = writer;
        if (current != null) {
            current.close();
        }
    }

    @Override
    public String toString() {
        return "VerifierStore[" + file.file() + "]";
    }

    /** For tests: what the file holds now, read afresh. */
    Optional<VerifierMemory.Remembered> reread() {
        return file.read().map(this::decode);
    }
}
