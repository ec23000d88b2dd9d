package io.eve.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.event.Level;

/** A peer's crash resets many connections at once; the process reports it in one WARN line. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ConnectionLossLogTest {
    private static final InetSocketAddress NODE_0 = new InetSocketAddress("127.0.0.1", 7000);

    private final RecordingLogger logger = new RecordingLogger();
    private final ConnectionLossLog log = new ConnectionLossLog(logger);

    private static SocketException reset() {
        return new SocketException("Connection reset");
    }

    @Test
    void shouldWarnOnceWhenThirteenConnectionsToOnePeerAreReset() {
        for (int client = 0; client < 13; client++) {
            log.onFailed(5_000 + client, 0, NODE_0, reset());
        }

        assertThat(logger.at(Level.WARN))
                .containsExactly("node 5000: lost the connection with node 0 (" + NODE_0
                        + "): java.net.SocketException: Connection reset; further losses of node 0 log at DEBUG"
                        + " until it is reached again");
        assertThat(logger.at(Level.DEBUG)).hasSize(12);
    }

    @Test
    void shouldWarnAgainAfterThePeerWasReachedAgain() {
        log.onFailed(5_000, 0, NODE_0, reset());
        log.onConnected(0);
        log.onFailed(5_001, 0, NODE_0, reset());
        log.onFailed(5_002, 0, NODE_0, reset());

        assertThat(logger.at(Level.WARN)).hasSize(2);
        assertThat(logger.at(Level.DEBUG)).hasSize(1);
    }

    @Test
    void shouldWarnOncePerPeer() {
        log.onFailed(5_000, 0, NODE_0, reset());
        log.onFailed(5_000, 1, NODE_0, reset());
        log.onFailed(5_001, 1, NODE_0, reset());

        assertThat(logger.at(Level.WARN)).hasSize(2);
    }

    @Test
    void shouldWarnEveryTimeForConnectionsNotYetNamedAndForFailuresOtherThanIo() {
        log.onFailed(1, -1, NODE_0, reset());
        log.onFailed(1, -1, NODE_0, reset());
        log.onFailed(1, 0, NODE_0, new IllegalStateException("receiver failed"));
        log.onFailed(1, 0, NODE_0, new IllegalStateException("receiver failed"));

        assertThat(logger.at(Level.WARN)).hasSize(4);
        assertThat(logger.at(Level.WARN).get(3)).contains("closing the connection", "receiver failed");
    }

    @Test
    void shouldWarnOnceWhenTransportsSharingTheLogLoseTheSamePeer() {
        List<NettyTransport> clients = new ArrayList<>();
        try {
            for (int client = 0; client < 4; client++) {
                clients.add(NettyTransport.builder()
                        .self(5_000 + client)
                        .connectionLossLog(log)
                        .build());
            }
            for (NettyTransport client : clients) {
                for (int connection = 0; connection < 3; connection++) {
                    EmbeddedChannel channel = new EmbeddedChannel(new Delivery(client, 0));
                    channel.pipeline().fireExceptionCaught(reset());
                    assertThat(channel.isOpen()).isFalse();
                }
            }

            assertThat(logger.at(Level.WARN)).hasSize(1);
            assertThat(logger.at(Level.DEBUG)).hasSize(11);
            assertThat(clients)
                    .allSatisfy(client -> assertThat(
                                    client.closedConnections(NettyTransport.ClosedBecause.CONNECTION_ERROR))
                            .isEqualTo(3));
        } finally {
            clients.forEach(NettyTransport::close);
        }
    }
}
