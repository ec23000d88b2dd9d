package io.eve.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.EveException;
import io.eve.verify.primarybackup.WitnessState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileWitnessStoreTest {

    @Test
    void shouldReadBackWhatItSavedLast(@TempDir Path dir) {
        FileWitnessStore store = new FileWitnessStore(dir.resolve("sub").resolve("witness-2.state"));
        assertThat(store.load()).isEmpty();
        store.save(new WitnessState(3, true, 1));
        store.save(new WitnessState(3, false, 1));
        assertThat(new FileWitnessStore(store.file()).load()).contains(new WitnessState(3, false, 1));
        assertThat(Files.exists(dir.resolve("sub").resolve("witness-2.state.tmp")))
                .isFalse();
    }

    @Test
    void shouldRefuseADamagedFileNamingIt(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("witness-2.state");
        FileWitnessStore store = new FileWitnessStore(file);
        store.save(new WitnessState(7, true, 0));
        Files.writeString(file, Files.readString(file).replace(" 7 ", " 9 "));
        assertThatThrownBy(store::load)
                .isInstanceOf(EveException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("checksum");
        Files.writeString(file, "garbage");
        assertThatThrownBy(store::load).hasMessageContaining(file.toString()).hasMessageContaining("'garbage'");
    }
}
