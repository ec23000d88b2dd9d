package io.eve.bench.deployed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.bench.deployed.DeployedBenchmark.SystemSpec;
import org.junit.jupiter.api.Test;

class SystemSpecTest {
    @Test
    void readsTheBaseAndEachSuffixInAnyOrder() {
        assertThat(SystemSpec.parse("crash")).isEqualTo(new SystemSpec("crash", false, false));
        assertThat(SystemSpec.parse("primary-backup/tls")).isEqualTo(new SystemSpec("primary-backup", false, true));
        assertThat(SystemSpec.parse("bft/legacy-client")).isEqualTo(new SystemSpec("bft", true, false));
        assertThat(SystemSpec.parse("ratis-grpc")).isEqualTo(new SystemSpec("ratis-grpc", false, false));
        assertThat(SystemSpec.parse("unreplicated")).isEqualTo(new SystemSpec("unreplicated", false, false));
    }

    @Test
    void namesWhatIsWrong() {
        assertThatThrownBy(() -> SystemSpec.parse("raft"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown system 'raft'");
        assertThatThrownBy(() -> SystemSpec.parse("crash/fast"))
                .hasMessageContaining("unknown or repeated suffix /fast");
        assertThatThrownBy(() -> SystemSpec.parse("crash/tls/tls"))
                .hasMessageContaining("unknown or repeated suffix /tls");
        assertThatThrownBy(() -> SystemSpec.parse("crash/")).hasMessageContaining("unknown or repeated suffix /");
        assertThatThrownBy(() -> SystemSpec.parse("ratis-netty/tls")).hasMessageContaining("Eve's systems only");
        assertThatThrownBy(() -> SystemSpec.parse("unreplicated/tls")).hasMessageContaining("Eve's systems only");
        assertThatThrownBy(() -> SystemSpec.parse("crash/legacy-client/tls"))
                .hasMessageContaining("the legacy client has no TLS");
    }
}
