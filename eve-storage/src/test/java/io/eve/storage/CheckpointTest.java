package io.eve.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.batch.Batch;
import io.eve.execution.ExecutionStage;
import io.eve.merkle.Digest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class CheckpointTest {
    private static final int KEYS = 40;

    @TempDir
    Path dir;

    /** A checkpoint every 10 batches; after 3 incremental ones the next is full. */
    private StorageConfig config() {
        return StorageConfig.of(dir).withCheckpoints(10, 3);
    }

    private Storage opened(ExecutionStage stage) {
        Storage storage = new Storage(config(), "node 0");
        storage.recover(stage);
        storage.start(seq -> {}, failure -> {});
        return storage;
    }

    /** Batch 1 writes 300 counters (a state much larger than what later batches change). */
    private static void commitFill(Storage storage, ExecutionStage stage) {
        Batch fill = Counters.fill(1, 300);
        storage.append(
                new LoggedBatch(1, false, fill, stage.execute(fill, false).token()));
        stage.markStable(1);
        storage.onStable(stage, 1, 1);
    }

    private static void commit(Storage storage, ExecutionStage stage, long from, long to) {
        for (long seq = from; seq <= to; seq++) {
            LoggedBatch batch = Counters.run(stage, seq, seq, KEYS).get(0);
            storage.append(batch);
            storage.onStable(stage, seq, batch.view());
        }
    }

    private List<Checkpoints.Entry> chain() throws IOException {
        Checkpoints checkpoints = new Checkpoints(dir, FileSync.FORCE);
        checkpoints.load(true);
        return checkpoints.chain();
    }

    private List<String> files(String prefix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(path -> path.getFileName().toString())
                    .filter(name -> name.startsWith(prefix))
                    .sorted()
                    .toList();
        }
    }

    private static Digest root(ExecutionStage stage) {
        return stage.state().rootAt(stage.stableSeq());
    }

    @Test
    void shouldChainIncrementalCheckpointsAndCompactThemIntoAFullOne() throws IOException {
        ExecutionStage first = Counters.newStage();
        Storage storage = opened(first);
        commitFill(storage, first);
        commit(storage, first, 2, 45);
        storage.close();

        List<Checkpoints.Entry> chain = chain();
        assertThat(chain).extracting(Checkpoints.Entry::seq).containsExactly(10L, 20L, 30L, 40L);
        assertThat(chain).extracting(Checkpoints.Entry::full).containsExactly(true, false, false, false);
        long full = chain.get(0).size();
        assertThat(chain.subList(1, 4))
                .allSatisfy(link -> assertThat(link.size()).isLessThan(full / 3));
        assertThat(files("checkpoint-")).hasSize(4);
        // Segments wholly before batch 40 are gone; what is left holds 41..45.
        assertThat(Storage.inspect(config())).isEqualTo(new Recovered(45, 1, 40, 5));

        ExecutionStage second = Counters.newStage();
        storage = opened(second);
        assertThat(root(second)).isEqualTo(root(first));
        assertThat(second.stableSeq()).isEqualTo(45);
        commit(storage, second, 46, 55);
        storage.close();

        assertThat(chain()).extracting(Checkpoints.Entry::seq).containsExactly(50L);
        assertThat(chain().get(0).full()).isTrue();
        assertThat(files("checkpoint-"))
                .containsExactly(Checkpoints.file(dir, 50).getFileName().toString());

        ExecutionStage third = Counters.newStage();
        new Storage(config(), "node 0").recover(third);
        Counters.run(first, 46, 55, KEYS);
        assertThat(root(third)).isEqualTo(root(first));
    }

    @Test
    void shouldDropACheckpointTakenBeyondTheCommittedBatchWhenItIsRolledBack() throws IOException {
        ExecutionStage stage = Counters.newStage();
        Storage storage = opened(stage);
        commit(storage, stage, 1, 9);
        // Batches 10 to 12 executed, only 10 committed: the checkpoint due at 10 reaches 12 and is pending.
        List<Batch> ahead = List.of(Counters.batch(10, KEYS), Counters.batch(11, KEYS), Counters.batch(12, KEYS));
        LoggedBatch tenth = new LoggedBatch(
                1, false, ahead.get(0), stage.execute(ahead.get(0), false).token());
        stage.execute(ahead.get(1), false);
        stage.execute(ahead.get(2), false);
        stage.markStable(10);
        storage.append(tenth);
        storage.onStable(stage, 10, 1);
        stage.rollbackTo(10);
        storage.onRolledBack(10);
        storage.close();

        assertThat(chain()).isEmpty();
        assertThat(files("checkpoint-")).isEmpty();
        ExecutionStage recovered = Counters.newStage();
        new Storage(config(), "node 0").recover(recovered);
        assertThat(recovered.stableSeq()).isEqualTo(10);
        assertThat(root(recovered)).isEqualTo(root(stage));
    }

    @Test
    void shouldInstallAPendingCheckpointOnceItsBatchIsCommitted() throws IOException {
        ExecutionStage stage = Counters.newStage();
        Storage storage = opened(stage);
        commit(storage, stage, 1, 9);
        List<LoggedBatch> ahead = List.of(
                new LoggedBatch(
                        1,
                        false,
                        Counters.batch(10, KEYS),
                        stage.execute(Counters.batch(10, KEYS), false).token()),
                new LoggedBatch(
                        1,
                        false,
                        Counters.batch(11, KEYS),
                        stage.execute(Counters.batch(11, KEYS), false).token()));
        stage.markStable(10);
        storage.append(ahead.get(0));
        storage.onStable(stage, 10, 1); // pending at 11
        stage.markStable(11);
        storage.append(ahead.get(1));
        storage.close();

        assertThat(chain()).extracting(Checkpoints.Entry::seq).containsExactly(11L);
    }

    @Test
    void shouldRefuseACorruptCheckpointNamingTheFileAndOffset() throws IOException {
        ExecutionStage stage = Counters.newStage();
        Storage storage = opened(stage);
        commitFill(storage, stage);
        commit(storage, stage, 2, 25);
        storage.close();
        Path checkpoint = Checkpoints.file(dir, 20);
        byte[] bytes = Files.readAllBytes(checkpoint);
        bytes[bytes.length / 2] ^= 1;
        Files.write(checkpoint, bytes);

        assertThatThrownBy(() -> new Storage(config(), "node 0").recover(Counters.newStage()))
                .isInstanceOf(CorruptStorageException.class)
                .hasMessageContaining(checkpoint.toString())
                .hasMessageContaining("offset " + (bytes.length - 4))
                .hasMessageContaining("checksum mismatch")
                .hasMessageContaining("rejoin by full state transfer");
    }

    @Test
    void shouldRefuseACorruptManifest() throws IOException {
        ExecutionStage stage = Counters.newStage();
        Storage storage = opened(stage);
        commit(storage, stage, 1, 25);
        storage.close();
        Path manifest = dir.resolve(Checkpoints.MANIFEST);
        byte[] bytes = Files.readAllBytes(manifest);
        bytes[14] ^= 4;
        Files.write(manifest, bytes);

        assertThatThrownBy(() -> new Storage(config(), "node 0").recover(Counters.newStage()))
                .isInstanceOf(CorruptStorageException.class)
                .hasMessageContaining(manifest.toString())
                .hasMessageContaining("offset " + (bytes.length - 4));
    }
}
