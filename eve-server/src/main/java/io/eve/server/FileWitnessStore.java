package io.eve.server;

import io.eve.EveException;
import io.eve.verify.primarybackup.WitnessState;
import io.eve.verify.primarybackup.WitnessStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * The witness's state in one small text file, {@code eve-witness 1 <view> <solo|pair> <holder> <crc32c>}: each
 * save writes a temporary file, forces it to disk, renames it over the old one atomically and forces the
 * folder, so a crash leaves either the old record or the new one. A record that does not parse or whose
 * checksum differs is refused with an exception naming the file: a witness that guessed would break the
 * fence.
 */
final class FileWitnessStore implements WitnessStore {
    private static final String MAGIC = "eve-witness 1";

    private final Path file;

    FileWitnessStore(Path file) {
        this.file = file.toAbsolutePath();
    }

    /** The file this store reads and writes. */
    Path file() {
        return file;
    }

    @Override
    public Optional<WitnessState> load() {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new EveException("cannot read the witness state " + file + ": " + e.getMessage(), e);
        }
        return Optional.of(parse(text));
    }

    private WitnessState parse(String text) {
        String[] fields = text.split(" ");
        if (fields.length != 6 || !(fields[0] + " " + fields[1]).equals(MAGIC)) {
            throw corrupt("expected '" + MAGIC + " <view> <solo|pair> <holder> <checksum>', found '" + text + "'");
        }
        String body = String.join(" ", fields[0], fields[1], fields[2], fields[3], fields[4]);
        if (!checksum(body).equals(fields[5])) {
            throw corrupt("its checksum " + fields[5] + " does not match its contents (" + checksum(body) + ")");
        }
        if (!fields[3].equals("solo") && !fields[3].equals("pair")) {
            throw corrupt("mode '" + fields[3] + "' is neither solo nor pair");
        }
        try {
            return new WitnessState(Long.parseLong(fields[2]), fields[3].equals("solo"), Integer.parseInt(fields[4]));
        } catch (IllegalArgumentException e) {
            throw corrupt(e.getMessage());
        }
    }

    private EveException corrupt(String what) {
        return new EveException("the witness state " + file + " is damaged (" + what + "); refusing to start: a"
                + " witness that forgot a grant could let both replicas commit alone. Restore the file, or delete it"
                + " only when both replicas are known to hold the same state");
    }

    @Override
    public void save(WitnessState state) {
        String body = String.join(
                " ",
                MAGIC,
                Long.toString(state.view()),
                state.solo() ? "solo" : "pair",
                Integer.toString(state.holder()));
        byte[] bytes = (body + " " + checksum(body) + "\n").getBytes(StandardCharsets.UTF_8);
        Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Files.createDirectories(file.getParent());
            try (FileChannel channel = FileChannel.open(
                    temporary,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                channel.write(ByteBuffer.wrap(bytes));
                channel.force(true);
            }
            try {
                Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new EveException(
                        "the file system of " + file + " cannot rename atomically; the witness needs" + " one that can",
                        e);
            }
            forceFolder(file.getParent());
        } catch (IOException e) {
            throw new EveException("cannot save the witness state to " + file + ": " + e.getMessage(), e);
        }
    }

    private static void forceFolder(Path folder) throws IOException {
        // The rename is durable only once the folder's entry is (POSIX); a platform that cannot open a
        // folder for reading fails here loudly rather than run a witness that may forget.
        try (FileChannel channel = FileChannel.open(folder, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    private static String checksum(String body) {
        CRC32C crc = new CRC32C();
        crc.update(body.getBytes(StandardCharsets.UTF_8));
        return String.format("%08x", crc.getValue());
    }
}
