package io.eve.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class PortRangeTest {

    @Test
    void shouldDrawBelowTheEphemeralRangeTheKernelReports() {
        PortRange range = PortRange.belowEphemeral("32768\t60999\n");

        assertThat(range.kernelChooses()).isFalse();
    }

    @Test
    void shouldLeaveTheChoiceToTheKernelWhenLittleRoomIsLeftBelowTheEphemeralRange() {
        assertThat(PortRange.belowEphemeral("1024 65535").kernelChooses()).isTrue();
        assertThat(PortRange.belowEphemeral((PortRange.LOWEST + PortRange.MIN_SPAN - 1) + " 65535")
                        .kernelChooses())
                .isTrue();
    }

    @Test
    void shouldNameTheContentsItCannotRead() {
        assertThatThrownBy(() -> PortRange.belowEphemeral("low high"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"low high\"")
                .hasMessageContaining("ip_local_port_range");
    }

    @Test
    void shouldRefuseARangeWithoutItsUpperBound() {
        // What Files.readString returns for this procfs file on JDK 17: its first byte.
        assertThatThrownBy(() -> PortRange.belowEphemeral("3")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldReadThisMachinesRange() throws IOException {
        org.junit.jupiter.api.Assumptions.assumeTrue(
                java.nio.file.Files.exists(java.nio.file.Path.of("/proc/sys/net/ipv4/ip_local_port_range")));

        PortRange range = PortRange.belowEphemeral();

        int[] ports = range.freePorts(2, 1);
        int firstEphemeral = Integer.parseInt(
                java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/sys/net/ipv4/ip_local_port_range"))
                        .get(0)
                        .trim()
                        .split("\\s+")[0]);
        if (!range.kernelChooses()) {
            assertThat(Arrays.stream(ports).boxed())
                    .allSatisfy(port -> assertThat(port).isLessThan(firstEphemeral));
        }
    }

    @Test
    void shouldReturnDistinctFreePortsInRangeAndAFreeBlockForTheMetrics() throws IOException {
        PortRange range = PortRange.belowEphemeral("32768 60999");

        int[] ports = range.freePorts(5, 4);

        assertThat(ports).hasSize(6);
        assertThat(Arrays.stream(ports).boxed())
                .allSatisfy(port -> assertThat(port).isBetween(PortRange.LOWEST, 32_767));
        int metrics = ports[5];
        int[] every = new int[] {
            ports[0],
            ports[1],
            ports[2],
            ports[3],
            ports[4],
            metrics,
            metrics + 1,
            metrics + 2,
            metrics + 3,
            metrics + 4
        };
        assertThat(Arrays.stream(every).distinct().count())
                .as("transport ports apart from each other and from the metrics block")
                .isEqualTo(10);
        assertThat(metrics + 4).isLessThan(32_768);
        for (int port : new int[] {metrics, metrics + 1, metrics + 2, metrics + 3, metrics + 4}) {
            assertThat(bindable(port))
                    .as("port %d of the metrics block is free", port)
                    .isTrue();
        }
    }

    @Test
    void shouldNotReturnAPortSomeoneListensOn() throws IOException {
        // A range of exactly one port, held here: every draw finds it taken.
        try (ServerSocket taken = new ServerSocket(0)) {
            PortRange one = new PortRange(taken.getLocalPort(), taken.getLocalPort() + 1);

            assertThatThrownBy(() -> one.freePorts(1, 0))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("ports " + taken.getLocalPort() + "-" + taken.getLocalPort());
        }
    }

    @Test
    void shouldFallBackToTheKernelsChoice() throws IOException {
        int[] ports = PortRange.kernelChoice().freePorts(3, 2);

        assertThat(ports).hasSize(4).doesNotContain(0);
        assertThat(bindable(ports[3] + 2)).isTrue();
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
