package io.eve.rdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.config.ClusterConfig;
import io.eve.rdma.memory.InMemoryFabric;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code eve rdma-check}: what it reports on this machine, and on one where every check passes. */
class RdmaCheckTest {
    private static final String CLUSTER = "profile=primary-backup\nnodes=0@127.0.0.1:7100, 1@127.0.0.1:7101\n"
            + "transport=auto\nrdma.nodes=0@10.0.0.1:7500, 1@10.0.0.2:7500\n";

    @TempDir
    Path dir;

    @Test
    void shouldSayWhatIsMissingOnThisMachineAndThatTheReplicaWouldUseNetty() throws IOException {
        ClusterConfig cluster = config(CLUSTER);
        RdmaCheck check = new RdmaCheck(
                RdmaProbe.ofThisMachine(1 << 20), dir.resolve("infiniband"), TransportSelector::newDisniFabric);
        StringBuilder report = new StringBuilder();
        assertThat(run(check, cluster, 0, report)).isFalse();
        assertThat(report.toString())
                .contains("[FAIL] libdisni")
                .contains("fix: build and install libdisni")
                .contains("[FAIL] rdma-devices")
                .contains("modprobe rdma_rxe")
                .contains("loopback: skipped: fix the failed checks above first")
                .contains("node 1: Netty (transport = auto and RDMA is not ready here)")
                .contains("result: RDMA is NOT ready");
    }

    @Test
    void shouldReportDevicesALoopbackThroughARingAndTheRdmaPathWhenEverythingPasses() throws IOException {
        Path port = Files.createDirectories(dir.resolve("infiniband/rxe0/ports/1"));
        Files.writeString(port.resolve("state"), "4: ACTIVE\n");
        Files.writeString(port.resolve("link_layer"), "Ethernet\n");
        Files.createDirectories(port.resolve("gids"));
        Files.writeString(port.resolve("gids/0"), "fe80:0000:0000:0000:0250:56ff:fe8a:1b2c\n");
        InMemoryFabric fabric = new InMemoryFabric();
        RdmaCheck check = new RdmaCheck(
                new RdmaProbe(passing(dir.resolve("infiniband")), 1 << 20),
                dir.resolve("infiniband"),
                (node, address) -> fabric.node(node));
        StringBuilder report = new StringBuilder();
        assertThat(run(check, config(CLUSTER), 0, report)).isTrue();
        assertThat(report.toString())
                .contains("rxe0 port 1: state 4: ACTIVE, link layer Ethernet, GID[0] fe80:0000:0000:0000:0250:56ff")
                .contains("loopback: ok: a 32-byte entry (posted inline) and a 4000-byte entry")
                .contains("inline limit: the queue pair takes 64 bytes")
                .contains("node 1: RDMA rings to 10.0.0.2:7500, control channel 10.0.0.2:7501")
                .contains("result: RDMA is ready");
    }

    @Test
    void shouldFailTheLoopbackWhenWritesFailAndSayWhy() throws IOException {
        Files.createDirectories(dir.resolve("infiniband/rxe0"));
        InMemoryFabric fabric = new InMemoryFabric();
        fabric.failPosts(true);
        RdmaCheck check = new RdmaCheck(
                new RdmaProbe(passing(dir.resolve("infiniband")), 1 << 20),
                dir.resolve("infiniband"),
                (node, address) -> fabric.node(node));
        StringBuilder report = new StringBuilder();
        assertThat(run(check, config(CLUSTER), 0, report)).isFalse();
        assertThat(report.toString())
                .contains("loopback: FAIL: a 32-byte entry")
                .contains("ENOMEM");
    }

    @Test
    void shouldRefuseANodeThatIsNotInTheConfiguration() {
        RdmaCheck check = new RdmaCheck(
                RdmaProbe.ofThisMachine(1 << 20), dir.resolve("infiniband"), TransportSelector::newDisniFabric);
        assertThatThrownBy(() -> check.run(config(CLUSTER), 7, new PrintStream(new ByteArrayOutputStream())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("node 7 is not in the configuration");
    }

    private static boolean run(RdmaCheck check, ClusterConfig cluster, int node, StringBuilder report) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        boolean ready = check.run(cluster, node, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        report.append(bytes.toString(StandardCharsets.UTF_8));
        return ready;
    }

    private static ClusterConfig config(String text) throws IOException {
        Properties properties = new Properties();
        properties.load(new StringReader(text));
        return ClusterConfig.parse(properties);
    }

    private RdmaProbe.Environment passing(Path devices) throws IOException {
        Files.createFile(dir.resolve(System.mapLibraryName("disni")));
        return new RdmaProbe.Environment() {
            @Override
            public boolean classPresent(String name) {
                return true;
            }

            @Override
            public boolean sunNioChExported() {
                return true;
            }

            @Override
            public List<Path> libraryPath() {
                return List.of(dir);
            }

            @Override
            public List<Path> otherLibraryDirs() {
                return List.of();
            }

            @Override
            public Path deviceDir() {
                return devices;
            }

            @Override
            public OptionalLong lockedMemoryLimit() {
                return OptionalLong.of(Long.MAX_VALUE);
            }

            @Override
            public String deepCheck() {
                return null;
            }
        };
    }
}
