package io.eve.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StateFileTest {
    @TempDir
    Path dir;

    private StateFile file(FileSync sync) {
        return new StateFile(dir.resolve("node-1").resolve("verifier.state"), "restore it", sync);
    }

    @Test
    void shouldReadBackTheLastRecordWritten() throws Exception {
        StateFile file = file(FileSync.FORCE);
        assertThat(file.read()).isEmpty();
        file.write("first".getBytes(StandardCharsets.UTF_8));
        file.write("second".getBytes(StandardCharsets.UTF_8));
        assertThat(new String(file.read().orElseThrow(), StandardCharsets.UTF_8))
                .isEqualTo("second");
        assertThat(Files.exists(file.file().resolveSibling("verifier.state.tmp")))
                .isFalse();
    }

    @Test
    void shouldIgnoreATemporaryFileACrashLeftBeside() throws Exception {
        StateFile file = file(FileSync.FORCE);
        file.write("kept".getBytes(StandardCharsets.UTF_8));
        Files.write(file.file().resolveSibling("verifier.state.tmp"), new byte[] {1, 2, 3});
        assertThat(new String(file.read().orElseThrow(), StandardCharsets.UTF_8))
                .isEqualTo("kept");
    }

    @Test
    void shouldRefuseAFlippedBitInTheHeaderNamingTheFile() throws Exception {
        StateFile file = file(FileSync.FORCE);
        file.write("view 7".getBytes(StandardCharsets.UTF_8));
        file.close();
        byte[] bytes = Files.readAllBytes(file.file());
        bytes[13] ^= 0x10;
        Files.write(file.file(), bytes);
        assertThatThrownBy(file::read)
                .isInstanceOf(CorruptStorageException.class)
                .hasMessageContaining(file.file().toString())
                .hasMessageContaining("header checksum mismatch")
                .hasMessageContaining("restore it");
    }

    @Test
    void shouldRefuseAFileCutShortNamingTheFile() throws Exception {
        StateFile file = file(FileSync.FORCE);
        file.write("view 7".getBytes(StandardCharsets.UTF_8));
        file.close();
        byte[] bytes = Files.readAllBytes(file.file());
        Files.write(file.file(), java.util.Arrays.copyOf(bytes, bytes.length - 2));
        assertThatThrownBy(file::read)
                .isInstanceOf(CorruptStorageException.class)
                .hasMessageContaining(file.file().toString())
                .hasMessageContaining("cut short");
        Files.write(file.file(), new byte[] {0x45, 0x56});
        assertThatThrownBy(file::read)
                .isInstanceOf(CorruptStorageException.class)
                .hasMessageContaining("shorter than its header");
    }

    @Test
    void shouldRefuseAnotherFile() throws Exception {
        StateFile file = file(FileSync.FORCE);
        Files.createDirectories(file.file().getParent());
        Files.write(file.file(), "eve-witness 1 3 solo 0 deadbeef\n".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(file::read)
                .isInstanceOf(CorruptStorageException.class)
                .hasMessageContaining("bad magic or version");
    }

    @Test
    void shouldWriteOnlyTheLatestOfTheRecordsSubmittedDuringAWrite() throws Exception {
        AtomicInteger forces = new AtomicInteger();
        CountDownLatch firstForce = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        StateFile file = file(channel -> {
            forces.incrementAndGet();
            firstForce.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        AtomicLong durable = new AtomicLong();
        StateFileWriter writer = new StateFileWriter(file, "verifier 1", durable::set, e -> {});
        writer.start();
        writer.submit(1, new byte[] {1});
        assertThat(firstForce.await(30, TimeUnit.SECONDS)).isTrue();
        // The first write waits in its force: these three form the next group.
        writer.submit(2, new byte[] {2});
        writer.submit(3, new byte[] {3});
        writer.submit(4, new byte[] {4});
        release.countDown();
        writer.close();
        assertThat(durable.get()).isEqualTo(4);
        assertThat(writer.writes()).isEqualTo(2);
        assertThat(file.read().orElseThrow()).containsExactly(4);
        assertThatThrownBy(() -> writer.submit(4, new byte[] {5}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("version 4 is not above 4");
    }
}
