package io.eve.server.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.Application;
import io.eve.ExecutionContext;
import io.eve.config.ClusterConfig;
import io.eve.config.ConfigException;
import io.eve.merkle.VersionedState;
import io.eve.merkle.graph.ObjectGraphState;
import io.eve.mixer.ConflictKeys;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApplicationLoaderTest {
    private static final ClusterConfig CLUSTER = cluster("app.greeting=hello\n");

    /** Reads its greeting from the configuration. */
    public static final class Configured extends Nothing {
        final String greeting;

        public Configured(ClusterConfig cluster) {
            this.greeting = cluster.app("greeting", "");
        }
    }

    /** Needs nothing. */
    public static class Nothing implements Application {
        private final ObjectGraphState state = ObjectGraphState.builder().build();

        @Override
        public VersionedState state() {
            return state;
        }

        @Override
        public ConflictKeys conflictKeys(byte[] payload) {
            return ConflictKeys.none();
        }

        @Override
        public byte[] execute(byte[] payload, ExecutionContext context) {
            return payload;
        }
    }

    /** Cannot be made: no public constructor it can use. */
    public static final class Unmakeable extends Nothing {
        public Unmakeable(String name) {
            super();
        }
    }

    /** Refuses its settings. */
    public static final class Refusing extends Nothing {
        public Refusing(ClusterConfig cluster) {
            throw new IllegalArgumentException("app.accounts is missing");
        }
    }

    @Test
    void shouldPassTheConfigurationToAConstructorThatTakesIt() {
        Application app =
                ApplicationLoader.over(List.of()).instance(Configured.class.getName(), Application.class, CLUSTER);
        assertThat(app).isInstanceOf(Configured.class);
        assertThat(((Configured) app).greeting).isEqualTo("hello");
        assertThat(ApplicationLoader.over(List.of()).instance(Nothing.class.getName(), Application.class, CLUSTER))
                .isInstanceOf(Nothing.class);
    }

    @Test
    void shouldNameTheClassAndWhatIsWrongForEveryMistake(@TempDir Path dir) {
        ApplicationLoader loader = ApplicationLoader.over(List.of(dir.toString()));
        assertThatThrownBy(() -> loader.instance("com.example.Missing", Application.class, CLUSTER))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("cannot load class com.example.Missing")
                .hasMessageContaining(dir.toString());
        assertThatThrownBy(() -> loader.instance(String.class.getName(), Application.class, CLUSTER))
                .hasMessage("java.lang.String does not implement io.eve.Application");
        assertThatThrownBy(() -> loader.instance(Unmakeable.class.getName(), Application.class, CLUSTER))
                .hasMessageContaining(Unmakeable.class.getName() + " needs a public constructor taking a "
                        + ClusterConfig.class.getName());
        assertThatThrownBy(() -> loader.instance(Refusing.class.getName(), Application.class, CLUSTER))
                .hasMessageContaining("the constructor of " + Refusing.class.getName() + " threw")
                .hasMessageContaining("app.accounts is missing");
        assertThatThrownBy(() ->
                        ApplicationLoader.over(List.of(dir.resolve("nope.jar").toString())))
                .hasMessageContaining("--classpath entry " + dir.resolve("nope.jar") + " does not exist");
    }

    static ClusterConfig cluster(String extra) {
        try {
            Properties properties = new Properties();
            properties.load(
                    new StringReader("profile=primary-backup\nnodes=0@127.0.0.1:7100, 1@127.0.0.1:7101\n" + extra));
            return ClusterConfig.parse(properties);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
