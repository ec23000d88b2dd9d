package io.eve.rdma.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Control channels on 127.0.0.1 ephemeral ports: reaching a peer that closed and came back on another port. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ControlChannelTest {
    private final Map<Integer, InetSocketAddress> addresses = new ConcurrentHashMap<>();
    private final List<AutoCloseable> opened = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable resource : opened) {
            resource.close();
        }
    }

    @Test
    void shouldReachAPeerThatClosedAndStartedAgainOnAnotherPort() throws Exception {
        Received first = new Received();
        ControlChannel sender = start(1, new Received());
        ControlChannel old = start(2, first);
        sender.send(2, new ControlFrame.Ack(1));
        await(() -> first.acks.contains(1L));

        addresses.remove(2);
        old.close();
        Received second = new Received();
        start(2, second);
        sendUntilReceived(sender, second);
        assertThat(second.acks).as("frames node 2's successor received").isNotEmpty();
    }

    @Test
    void shouldDialAgainWhenTheOldConnectionStaysOpenButNobodyReadsIt() throws Exception {
        // Node 2's first process accepted node 1's connection and then stopped reading without closing it
        // (a machine that lost power, or a process of the same JVM whose sockets outlive it). Node 1 only
        // learns of the new process from its hello; reconnect (what the transport then calls) must make
        // the next frames go to the new process instead of into the dead connection.
        ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        opened.add(silent);
        List<Socket> held = new CopyOnWriteArrayList<>();
        Thread acceptor = new Thread(() -> {
            try {
                Socket socket = silent.accept();
                held.add(socket);
                opened.add(socket);
                InputStream in = socket.getInputStream();
                in.readNBytes(4); // the length of node 1's hello: the connection is up; nothing more is read
            } catch (IOException e) {
                // closed at the end of the test
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
        addresses.put(2, new InetSocketAddress(silent.getInetAddress(), silent.getLocalPort()));
        ControlChannel sender = start(1, new Received());
        sender.send(2, new ControlFrame.Ack(1));
        await(() -> !held.isEmpty());

        Received successor = new Received();
        start(2, successor);
        sender.send(2, new ControlFrame.Ack(2));
        sender.reconnect(2);
        sendUntilReceived(sender, successor);
        assertThat(successor.acks).as("frames the new process received").isNotEmpty();
    }

    /** A peer that connects and says nothing is cut after the hello timeout (it would hold the socket forever). */
    @Test
    void shouldCloseAnAcceptedConnectionThatSaysNoHelloInTime() throws Exception {
        ControlChannel channel = startWithHelloTimeout(1, new Received(), 300);
        try (Socket silent = new Socket()) {
            silent.connect(channel.boundAddress());
            silent.setSoTimeout((int) TimeUnit.SECONDS.toMillis(30));
            assertThat(silent.getInputStream().read()).as("closed by the node").isEqualTo(-1);
        }
    }

    /** The timeout applies only until the hello: a peer that said it keeps its connection. */
    @Test
    void shouldKeepAConnectionThatSaidHelloPastTheHelloTimeout() throws Exception {
        Received listener = new Received();
        ControlChannel channel = startWithHelloTimeout(1, listener, 300);
        try (Socket peer = new Socket()) {
            peer.connect(channel.boundAddress());
            writeFrame(peer, new ControlFrame.Hello(2, 19, 1));
            // Once the node has read the hello, the timer finds the connection named and leaves it open; until
            // then a loaded machine could delay the read past the timeout, which is the other test's case.
            await(() -> listener.hellos.contains(2));
            Thread.sleep(1_000); // past the 300 ms timeout
            writeFrame(peer, new ControlFrame.Ack(5));
            await(() -> listener.acks.contains(5L));
        }
    }

    private static void writeFrame(Socket socket, ControlFrame frame) throws IOException {
        byte[] body = ControlCodec.encode(frame);
        byte[] framed = new byte[4 + body.length];
        framed[0] = (byte) (body.length >>> 24);
        framed[1] = (byte) (body.length >>> 16);
        framed[2] = (byte) (body.length >>> 8);
        framed[3] = (byte) body.length;
        System.arraycopy(body, 0, framed, 4, body.length);
        socket.getOutputStream().write(framed);
        socket.getOutputStream().flush();
    }

    private ControlChannel startWithHelloTimeout(int node, Received listener, long helloTimeoutMillis) {
        listener.self = node;
        ControlChannel channel = new ControlChannel(
                node,
                new InetSocketAddress("127.0.0.1", 0),
                addresses::get,
                1 << 16,
                listener,
                null,
                helloTimeoutMillis);
        opened.add(0, channel);
        channel.start();
        addresses.put(node, channel.boundAddress());
        return channel;
    }

    private static void sendUntilReceived(ControlChannel sender, Received receiver) throws InterruptedException {
        long next = 100;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (receiver.acks.isEmpty() && System.nanoTime() < deadline) {
            sender.send(2, new ControlFrame.Ack(next++));
            Thread.sleep(50);
        }
    }

    private ControlChannel start(int node, Received listener) {
        listener.self = node;
        ControlChannel channel =
                new ControlChannel(node, new InetSocketAddress("127.0.0.1", 0), addresses::get, 1 << 16, listener);
        opened.add(0, channel);
        channel.start();
        addresses.put(node, channel.boundAddress());
        return channel;
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime())
                    .as("condition met before the deadline")
                    .isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    /** Records the acknowledgements a node receives. */
    private static final class Received implements ControlChannel.Listener {
        final List<Long> acks = new CopyOnWriteArrayList<>();
        final List<Integer> hellos = new CopyOnWriteArrayList<>();
        volatile int self;

        @Override
        public ControlFrame.Hello helloFor(int peer) {
            return new ControlFrame.Hello(self, 17 + self, 1);
        }

        @Override
        public void onConnected(int peer, boolean framesLost) {}

        @Override
        public void onFrame(int from, ControlFrame frame) {
            if (frame instanceof ControlFrame.Ack ack) {
                acks.add(ack.seq());
            } else if (frame instanceof ControlFrame.Hello hello) {
                hellos.add(hello.node());
            }
        }
    }
}
