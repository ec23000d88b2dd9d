package io.eve.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.config.ClusterConfig;
import io.eve.rdma.RdmaTransport;
import io.eve.rdma.memory.InMemoryFabric;
import io.eve.server.security.Bundles;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The RDMA transport as a replica builds it (on the in-memory fabric, since this machine has no RDMA): with
 * {@code tls.enabled} its control channel runs under the node's TLS identity, and a plain peer is refused and
 * counted on the replica's meters.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReplicaTransportsTest {
    @TempDir
    Path dir;

    @Test
    void shouldRunTheControlChannelUnderTheNodesTlsAndCountARefusedPlainPeer() throws Exception {
        Path bundle = dir.resolve("bundle");
        ClusterConfig cluster = cluster(freePort(), bundle);
        Bundles.validFor(Duration.ofDays(1)).write(cluster, bundle, 0, false);
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (InMemoryFabric fabric = new InMemoryFabric();
                RdmaTransport transport = ReplicaTransports.rdma(
                        cluster, 0, fabric.node(0), ReplicaTransports.tlsIdentity(cluster, 0), meters)) {
            transport.start((from, message) -> {});
            try (Socket plain = new Socket()) {
                plain.connect(transport.boundAddress(), 10_000);
                plain.setSoTimeout(60_000);
                // A well-formed hello of the control channel, claiming to be node 1.
                plain.getOutputStream()
                        .write(ByteBuffer.allocate(25)
                                .putInt(21)
                                .put((byte) 1)
                                .putInt(1)
                                .putLong(7)
                                .putLong(1)
                                .array());
                assertThat(closedByPeer(plain))
                        .as("node 0 closed the plain connection")
                        .isTrue();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (refused(meters, "tls_failed") < 1 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(refused(meters, "tls_failed")).isEqualTo(1);
            assertThat(refused(meters, "impostor")).isZero();
        }
    }

    private static double refused(SimpleMeterRegistry meters, String reason) {
        return meters.get("eve.rdma.control.refused")
                .tag("node", "0")
                .tag("reason", reason)
                .functionCounter()
                .count();
    }

    /** Three crash replicas on RDMA and TLS; node 0's control channel on {@code controlPort} (its RDMA port + 1). */
    private static ClusterConfig cluster(int controlPort, Path bundle) throws IOException {
        Properties properties = new Properties();
        properties.load(new StringReader("profile=crash\n"
                + "nodes=0@127.0.0.1:1, 1@127.0.0.1:2, 2@127.0.0.1:3\n"
                + "transport=rdma\n"
                + "rdma.nodes=0@127.0.0.1:" + (controlPort - 1) + ", 1@127.0.0.1:5, 2@127.0.0.1:7\n"
                + "tls.enabled=on\n"));
        properties.setProperty("tls.dir", bundle.toString());
        return ClusterConfig.parse(properties);
    }

    private static int freePort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return probe.getLocalPort();
        }
    }

    private static boolean closedByPeer(Socket socket) {
        try {
            InputStream in = socket.getInputStream();
            while (in.read() >= 0) {
                // until node 0 closes
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // a reset: closed as well
        }
    }
}
