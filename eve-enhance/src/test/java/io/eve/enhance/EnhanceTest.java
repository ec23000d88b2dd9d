package io.eve.enhance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import net.bytebuddy.description.type.TypeDescription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line of the build step: bad arguments are refused with what was expected. What the
 * rewritten classes do is tested in eve-merkle, whose test classes go through the step.
 */
class EnhanceTest {

    @Test
    void shouldRefuseNoArguments() {
        assertThatThrownBy(() -> Enhance.main(new String[0]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("usage: Enhance <class folder>");
    }

    @Test
    void shouldRefuseAnEmptySkipPrefix() {
        assertThatThrownBy(() -> Enhance.main(new String[] {"--skip="}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--skip= needs a class name prefix");
    }

    @Test
    void shouldRefuseAFileThatIsNotAFolder(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("classes.txt"), "not classes");
        assertThatThrownBy(() -> Enhance.main(new String[] {file.toString()}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file + " is not a folder of class files");
    }

    @Test
    void shouldSkipAFolderThatDoesNotExist(@TempDir Path dir) throws IOException {
        Path missing = dir.resolve("test-classes");
        Enhance.main(new String[] {missing.toString()});
        assertThat(missing).doesNotExist();
    }

    @Test
    void shouldLeaveClassesWithASkippedPrefixAsCompiled() {
        TrackWritesPlugin plugin = new TrackWritesPlugin(List.of("com.example.manual."));
        assertThat(plugin.matches(TypeDescription.ForLoadedType.of(EnhanceTest.class)))
                .isTrue();
        assertThat(new TrackWritesPlugin(List.of("io.eve.enhance."))
                        .matches(TypeDescription.ForLoadedType.of(EnhanceTest.class)))
                .isFalse();
    }
}
