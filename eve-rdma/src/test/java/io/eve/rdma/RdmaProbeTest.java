package io.eve.rdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.eve.protocol.Message;
import io.eve.transport.Transport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RdmaProbeTest {
    private static final List<String> ALL_CHECKS =
            List.of("disni-class", "add-exports", "libdisni", "rdma-devices", "memlock");

    @TempDir
    Path dir;

    private final AtomicInteger deepChecks = new AtomicInteger();

    @Test
    void shouldListEveryFailedCheckWithItsFix() {
        RdmaProbe probe = new RdmaProbe(environment(false, false, false, 64 << 10), 1 << 20);
        RdmaProbe.Result result = probe.probe();
        assertThat(result.available()).isFalse();
        assertThat(result.failed()).extracting(RdmaProbe.Check::name).containsExactlyElementsOf(ALL_CHECKS);
        assertThatThrownBy(
                        () -> new TransportSelector(probe).select(TransportMode.RDMA, () -> null, f -> null, 1, null))
                .isInstanceOf(RdmaUnavailableException.class)
                .hasMessageContaining("[disni-class]")
                .hasMessageContaining("[add-exports]")
                .hasMessageContaining("--add-exports java.base/sun.nio.ch=ALL-UNNAMED")
                .hasMessageContaining("[libdisni]")
                .hasMessageContaining("java.library.path")
                .hasMessageContaining("[rdma-devices]")
                .hasMessageContaining("[memlock]")
                .hasMessageContaining("ulimit -l");
        assertThat(deepChecks).hasValue(0);
    }

    @Test
    void shouldRunTheDeepCheckOnlyWhenEveryOtherCheckPassed() throws IOException {
        Files.createFile(dir.resolve(System.mapLibraryName("disni")));
        Files.createDirectories(dir.resolve("infiniband/rxe0"));
        RdmaProbe.Result result = new RdmaProbe(environment(true, true, true, Long.MAX_VALUE), 1 << 20).probe();
        assertThat(result.available()).isTrue();
        assertThat(result.checks()).extracting(RdmaProbe.Check::name).contains("event-channel");
        assertThat(deepChecks).hasValue(1);
    }

    @Test
    void shouldAcceptALowLockedMemoryLimitWhenTheProcessHasCapIpcLock() throws IOException {
        Files.createFile(dir.resolve(System.mapLibraryName("disni")));
        Files.createDirectories(dir.resolve("infiniband/rxe0"));
        RdmaProbe.Environment low = environment(true, true, true, 64 << 10);
        assertThat(new RdmaProbe(low, 1 << 20).probe().failed())
                .extracting(RdmaProbe.Check::name)
                .containsExactly("memlock");
        RdmaProbe.Environment root = new RdmaProbe.Environment() {
            @Override
            public boolean classPresent(String name) {
                return low.classPresent(name);
            }

            @Override
            public boolean sunNioChExported() {
                return low.sunNioChExported();
            }

            @Override
            public List<Path> libraryPath() {
                return low.libraryPath();
            }

            @Override
            public List<Path> otherLibraryDirs() {
                return low.otherLibraryDirs();
            }

            @Override
            public Path deviceDir() {
                return low.deviceDir();
            }

            @Override
            public OptionalLong lockedMemoryLimit() {
                return low.lockedMemoryLimit();
            }

            @Override
            public boolean canLockBeyondLimit() {
                return true;
            }

            @Override
            public String deepCheck() {
                return low.deepCheck();
            }
        };
        RdmaProbe.Result result = new RdmaProbe(root, 1 << 20).probe();
        assertThat(result.available()).isTrue();
        assertThat(result.checks())
                .filteredOn(check -> check.name().equals("memlock"))
                .singleElement()
                .satisfies(check -> assertThat(check.detail()).contains("CAP_IPC_LOCK"));
        assertThat(new RdmaProbe(environment(true, true, true, Long.MAX_VALUE), 1L << 40)
                        .probe()
                        .available())
                .as("an unlimited RLIMIT_MEMLOCK is enough for any ring")
                .isTrue();
    }

    @Test
    void shouldReadCapIpcLockFromTheEffectiveCapabilities() {
        assertThat(RdmaProbe.grantsIpcLock("Name:\tjava\nCapInh:\t0\nCapEff:\t000001ffffffffff\n"))
                .isTrue();
        assertThat(RdmaProbe.grantsIpcLock("CapPrm:\t0000000000004000\nCapEff:\t0000000000000000\n"))
                .isFalse();
        assertThat(RdmaProbe.grantsIpcLock("CapEff:\t0000000000004000")).isTrue();
        assertThat(RdmaProbe.grantsIpcLock("CapEff:\tnot-hex")).isFalse();
        assertThat(RdmaProbe.grantsIpcLock("Name:\tjava")).isFalse();
    }

    @Test
    void shouldPointAtTheDirectoryWhereLibdisniIsInstalledButNotOnThePath() throws IOException {
        Path installed = Files.createDirectories(dir.resolve("usr-local-lib"));
        Files.createFile(installed.resolve(System.mapLibraryName("disni")));
        RdmaProbe.Result result = new RdmaProbe(environment(true, true, false, Long.MAX_VALUE), 0).probe();
        assertThat(result.describeFailures()).contains("-Djava.library.path=" + installed);
    }

    @Test
    void shouldFallBackToNettyOnThisMachineInAutoModeAndReportEveryReason() {
        RdmaProbe probe = RdmaProbe.ofThisMachine(1 << 20);
        RdmaProbe.Result result = probe.probe();
        assumeFalse(result.available(), "this machine can do RDMA");
        assertThat(result.failed()).extracting(RdmaProbe.Check::name).contains("libdisni", "rdma-devices");
        AtomicReference<RdmaProbe.Result> reported = new AtomicReference<>();
        Transport netty = new NullTransport();
        Transport chosen = new TransportSelector(probe, reported::set)
                .select(
                        TransportMode.AUTO,
                        () -> netty,
                        fabric -> {
                            throw new AssertionError("RDMA must not be chosen");
                        },
                        1,
                        null);
        assertThat(chosen).isSameAs(netty);
        assertThat(reported.get().failed()).isEqualTo(result.failed());
        assertThat(reported.get().describeFailures()).contains("[libdisni]", "[rdma-devices]");
    }

    @Test
    void shouldRefuseRdmaModeOnThisMachineNamingEveryFailedCheck() {
        RdmaProbe probe = RdmaProbe.ofThisMachine(1 << 20);
        RdmaProbe.Result result = probe.probe();
        assumeFalse(result.available(), "this machine can do RDMA");
        assertThatThrownBy(() ->
                        new TransportSelector(probe).select(TransportMode.RDMA, NullTransport::new, f -> null, 1, null))
                .isInstanceOf(RdmaUnavailableException.class)
                .satisfies(e -> {
                    for (RdmaProbe.Check check : result.failed()) {
                        assertThat(e.getMessage())
                                .contains("[" + check.name() + "]")
                                .contains(check.fix());
                    }
                });
    }

    @Test
    void shouldUseNettyInNettyModeWithoutProbing() {
        Transport netty = new NullTransport();
        RdmaProbe exploding = new RdmaProbe(null, 0);
        assertThat(new TransportSelector(exploding).select(TransportMode.NETTY, () -> netty, f -> null, 1, null))
                .isSameAs(netty);
    }

    @Test
    void shouldParseModesAndNameABadOne() {
        assertThat(TransportMode.parse(" Auto ")).isEqualTo(TransportMode.AUTO);
        assertThat(TransportMode.parse("rdma")).isEqualTo(TransportMode.RDMA);
        assertThatThrownBy(() -> TransportMode.parse("infiniband"))
                .hasMessageContaining("transport = infiniband")
                .hasMessageContaining("netty, rdma, auto");
    }

    private RdmaProbe.Environment environment(boolean classPresent, boolean exported, boolean devices, long memlock) {
        return new RdmaProbe.Environment() {
            @Override
            public boolean classPresent(String name) {
                return classPresent;
            }

            @Override
            public boolean sunNioChExported() {
                return exported;
            }

            @Override
            public List<Path> libraryPath() {
                return List.of(dir);
            }

            @Override
            public List<Path> otherLibraryDirs() {
                return List.of(dir.resolve("usr-local-lib"));
            }

            @Override
            public Path deviceDir() {
                return devices ? dir.resolve("infiniband") : dir.resolve("none");
            }

            @Override
            public OptionalLong lockedMemoryLimit() {
                return OptionalLong.of(memlock);
            }

            @Override
            public String deepCheck() {
                deepChecks.incrementAndGet();
                return null;
            }
        };
    }

    /** A transport that does nothing: a stand-in for the Netty one. */
    private static final class NullTransport implements Transport {
        @Override
        public int self() {
            return 1;
        }

        @Override
        public void start(Receiver receiver) {}

        @Override
        public void send(int to, Message message) {}

        @Override
        public void close() {}
    }
}
