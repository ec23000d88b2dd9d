package io.eve.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.protocol.Message;
import io.eve.transport.wire.FrameCodec;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Malformed input closes only the offending connection; the node keeps serving everyone else. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class NettyTransportHostileInputTest {
    private NettyTransport server;
    private final List<Message> received = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        server = NettyTransport.builder()
                .self(1)
                .listen(new InetSocketAddress("127.0.0.1", 0))
                .maxFrameBytes(64 * 1024)
                .handshakeTimeoutMillis(300)
                .frameTimeoutMillis(600)
                .build();
        server.start((from, message) -> received.add(message));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private Socket connect() throws Exception {
        Socket socket = new Socket();
        socket.connect(server.boundAddress(), 5_000);
        socket.setSoTimeout(5_000);
        return socket;
    }

    private static boolean closedByPeer(Socket socket) throws Exception {
        InputStream in = socket.getInputStream();
        try {
            return in.read() == -1;
        } catch (java.net.SocketException reset) {
            return true;
        }
    }

    private void assertStillServing() throws Exception {
        CountDownLatch got = new CountDownLatch(1);
        NettyTransport honest = NettyTransport.builder()
                .self(7)
                .peers(Map.of(1, server.boundAddress()))
                .build();
        try {
            honest.start((from, message) -> {});
            int before = received.size();
            honest.send(1, new Message.Heartbeat(5, 5));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (received.size() == before && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(received).last().isEqualTo(new Message.Heartbeat(5, 5));
            got.countDown();
        } finally {
            honest.close();
        }
    }

    @Test
    void shouldCloseAConnectionThatSendsGarbage() throws Exception {
        try (Socket socket = connect()) {
            OutputStream out = socket.getOutputStream();
            out.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            out.flush();
            assertThat(closedByPeer(socket)).isTrue();
        }
        assertStillServing();
        assertThat(server.closedConnections(NettyTransport.ClosedBecause.BAD_HANDSHAKE))
                .isEqualTo(1);
    }

    @Test
    void shouldCloseAConnectionThatAnnouncesAGiantFrame() throws Exception {
        try (Socket socket = connect()) {
            OutputStream out = socket.getOutputStream();
            out.write(ByteBuffer.allocate(8)
                    .putInt(HandshakeDecoder.MAGIC)
                    .putInt(9)
                    .array());
            out.write(ByteBuffer.allocate(4).putInt(Integer.MAX_VALUE).array());
            out.flush();
            assertThat(closedByPeer(socket)).isTrue();
        }
        assertStillServing();
        assertThat(server.closedConnections(NettyTransport.ClosedBecause.BAD_FRAME))
                .isEqualTo(1);
    }

    @Test
    void shouldCloseAConnectionThatNeverNamesItself() throws Exception {
        try (Socket socket = connect()) {
            socket.getOutputStream().write(new byte[] {0x45, 0x56});
            assertThat(closedByPeer(socket))
                    .as("a slow-loris handshake times out")
                    .isTrue();
        }
        assertStillServing();
        assertThat(received).hasSize(1);
        assertThat(server.closedConnections(NettyTransport.ClosedBecause.HANDSHAKE_TIMEOUT))
                .isEqualTo(1);
    }

    @Test
    void shouldCloseAConnectionThatTricklesAFrame() throws Exception {
        try (Socket socket = connect()) {
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            out.write(HandshakeDecoder.hello(9));
            byte[] frame = new FrameCodec(64 * 1024).encode(new Message.Heartbeat(1, 1));
            socket.setSoTimeout(100);
            long start = System.nanoTime();
            boolean closed = false;
            // One byte every 100 ms (the read below waits that long): the frame never completes.
            for (int i = 0; i < frame.length - 1 && !closed; i++) {
                try {
                    out.write(frame[i]);
                    out.flush();
                    closed = in.read() == -1;
                } catch (java.net.SocketTimeoutException stillOpen) {
                    // nothing to read: the connection is still open
                } catch (java.net.SocketException reset) {
                    closed = true;
                }
            }
            long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(closed).as("a trickled frame is cut off").isTrue();
            assertThat(elapsedMillis)
                    .as("closed by the 600 ms frame timeout, before the trickle of %d bytes ended", frame.length)
                    .isLessThan(100L * (frame.length - 2));
        }
        assertStillServing();
        assertThat(server.closedConnections(NettyTransport.ClosedBecause.FRAME_TIMEOUT))
                .isEqualTo(1);
    }
}
