package io.eve.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.protocol.Message;
import io.eve.transport.wire.FrameCodec;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A connection that merely names a replica must not cut that replica's real connection. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class NettyTransportImpostorTest {
    private final Map<Integer, InetSocketAddress> addresses = new ConcurrentHashMap<>();
    private final List<Message> atOne = new CopyOnWriteArrayList<>();
    private NettyTransport one;
    private NettyTransport two;

    @BeforeEach
    void start() {
        one = replica(1);
        one.start((from, message) -> atOne.add(message));
        addresses.put(1, one.boundAddress());
        two = replica(2);
        two.start((from, message) -> {});
        addresses.put(2, two.boundAddress());
    }

    @AfterEach
    void stop() {
        one.close();
        two.close();
    }

    private NettyTransport replica(int id) {
        return NettyTransport.builder()
                .self(id)
                .listen(new InetSocketAddress("127.0.0.1", 0))
                .peers(addresses::get)
                .build();
    }

    @Test
    void shouldKeepAReplicasLinkWhenAnotherConnectionClaimsItsId() throws Exception {
        sendAndAwait(1, 10, 10);
        assertThat(two.dials()).isEqualTo(1);
        try (Socket impostor = new Socket()) {
            impostor.connect(one.boundAddress(), 5_000);
            OutputStream out = impostor.getOutputStream();
            out.write(HandshakeDecoder.hello(2));
            out.write(new FrameCodec(64 * 1024).encode(new Message.Heartbeat(99, 99)));
            out.flush();
            // Once its frame arrives the claim was handled (before the fix, replica 2's connection closed then).
            awaitAtOne(11);
            assertThat(atOne).last().isEqualTo(new Message.Heartbeat(99, 99));

            sendAndAwait(11, 20, 21);

            assertThat(two.dials())
                    .as("replica 2 kept the connection it dialed")
                    .isEqualTo(1);
            impostor.setSoTimeout(200);
            assertThat(stillOpen(impostor))
                    .as("the claiming connection is not refused either: what it sends is checked like anything else")
                    .isTrue();
        }
    }

    /** Replica 2 sends heartbeats {@code first} to {@code last}; replica 1 must then hold {@code total}. */
    private void sendAndAwait(int first, int last, int total) throws InterruptedException {
        for (int i = first; i <= last; i++) {
            two.send(1, new Message.Heartbeat(i, i));
        }
        awaitAtOne(total);
    }

    private void awaitAtOne(int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (atOne.size() < count && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(atOne).hasSize(count);
    }

    private static boolean stillOpen(Socket socket) throws Exception {
        try {
            return socket.getInputStream().read() != -1;
        } catch (SocketTimeoutException quiet) {
            return true;
        } catch (java.net.SocketException reset) {
            return false;
        }
    }
}
