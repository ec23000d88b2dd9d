package io.eve.rdma.control;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.rdma.TlsBundle;
import io.eve.rdma.control.ControlChannel.Refusal;
import io.eve.transport.netty.tls.TlsIdentity;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Control channels under mutual TLS on 127.0.0.1 ephemeral ports: frames flow in order and encrypted, and
 * every peer that cannot prove the node it names (another node's certificate, a client's, plain TCP, an
 * address answered by another node) is refused and counted while node 1's real link keeps delivering.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ControlChannelTlsTest {
    private static final long DEADLINE_SECONDS = 60;
    private static final byte[] SECRET = "a descriptor's remote key".getBytes(StandardCharsets.UTF_8);

    @TempDir
    static Path dir;

    private static TlsBundle bundle;
    private final Map<Integer, InetSocketAddress> addresses = new ConcurrentHashMap<>();
    private final List<AutoCloseable> opened = new CopyOnWriteArrayList<>();
    private Received atZero;
    private Received atOne;
    private ControlChannel zero;
    private ControlChannel one;
    private long sentByOne;

    @BeforeAll
    static void writeBundle() throws Exception {
        bundle = TlsBundle.write(dir.resolve("bundle"), 3);
    }

    @BeforeEach
    void startNodesZeroAndOne() {
        atZero = new Received(0);
        zero = start(0, atZero, bundle.node(0), addresses::get);
        atOne = new Received(1);
        one = start(1, atOne, bundle.node(1), addresses::get);
    }

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable resource : opened) {
            resource.close();
        }
    }

    @Test
    void shouldCarryFramesInOrderAndEncryptedBothWays() throws Exception {
        try (RecordingProxy proxy = new RecordingProxy(zero.boundAddress())) {
            // Node 2 reaches node 0 through the proxy, which records what travels on the wire.
            Received atTwo = new Received(2);
            ControlChannel two = start(2, atTwo, bundle.node(2), id -> id == 0 ? proxy.address() : addresses.get(id));
            for (long seq = 1; seq <= 200; seq++) {
                two.send(0, new ControlFrame.Data(seq, SECRET));
                zero.send(2, new ControlFrame.Data(seq, SECRET));
            }
            await(() -> atZero.seqsFrom(2).size() == 200 && atTwo.seqsFrom(0).size() == 200);
            assertThat(atZero.seqsFrom(2))
                    .as("node 2's frames at node 0, in order")
                    .isEqualTo(oneTo(200));
            assertThat(atTwo.seqsFrom(0))
                    .as("node 0's frames at node 2, in order")
                    .isEqualTo(oneTo(200));

            byte[] wire = proxy.fromClient();
            assertThat(wire[0])
                    .as("the connection opens with a TLS handshake record")
                    .isEqualTo((byte) 0x16);
            assertThat(indexOf(wire, SECRET))
                    .as("the frames' bytes never appear in clear on the wire")
                    .isNegative();
            assertThat(zero.refused(Refusal.TLS_FAILED) + zero.refused(Refusal.IMPOSTOR))
                    .isZero();
        }
    }

    @Test
    void shouldRefuseNodeTwosCertificateClaimingNodeOneAndKeepNodeOnesLink() throws Exception {
        oneSendsAndEverythingArrives(10);
        ControlChannel impostor = start(2, new Received(1, 999), bundle.node(2), addresses::get);
        impostor.send(0, new ControlFrame.Data(999_999, SECRET));

        await(() -> zero.refusedImpostors(1) >= 1);
        assertThat(zero.refused(Refusal.IMPOSTOR)).isEqualTo(1);
        oneSendsAndEverythingArrives(10);
        assertThat(atZero.hellos)
                .as("only node 1's own hello reached the listener (another would announce a restart)")
                .containsExactly(Received.incarnation(1));
        assertThat(atOne.connections.get())
                .as("node 1 connected once: its link was never cut")
                .isEqualTo(1);
        assertThat(one.failedDials(0)).isZero();
    }

    @Test
    void shouldRefuseAClientCertificateClaimingNodeOne() throws Exception {
        oneSendsAndEverythingArrives(5);
        TlsIdentity client = bundle.client();
        ControlChannel impostor = start(client.identity().firstClient(), new Received(1, 999), client, addresses::get);
        impostor.send(0, new ControlFrame.Data(999_999, SECRET));

        await(() -> zero.refused(Refusal.IMPOSTOR) >= 1);
        assertThat(zero.refusedImpostors(1)).isEqualTo(1);
        oneSendsAndEverythingArrives(5);
        assertThat(atZero.hellos).containsExactly(Received.incarnation(1));
    }

    @Test
    void shouldRefuseAPlainTcpPeerThatSaysItIsNodeOne() throws Exception {
        oneSendsAndEverythingArrives(5);
        try (Socket plain = new Socket()) {
            plain.connect(zero.boundAddress(), 10_000);
            plain.setSoTimeout((int) TimeUnit.SECONDS.toMillis(DEADLINE_SECONDS));
            // One write: node 0 may close on the first bytes, and a second write would then fail instead.
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            bytes.write(framed(ControlCodec.encode(new ControlFrame.Hello(1, 999, 1))));
            bytes.write(framed(ControlCodec.encode(new ControlFrame.Data(999_999, SECRET))));
            OutputStream out = plain.getOutputStream();
            out.write(bytes.toByteArray());
            out.flush();
            assertThat(closedByPeer(plain))
                    .as("node 0 closed the plain connection")
                    .isTrue();
        }
        await(() -> zero.refused(Refusal.TLS_FAILED) >= 1);
        oneSendsAndEverythingArrives(5);
        assertThat(atZero.hellos).containsExactly(Received.incarnation(1));
    }

    @Test
    void shouldSendNothingToAnAddressAnsweredByAnotherNode() throws Exception {
        // Node 1 believes node 2 listens where node 0 does: node 0's certificate is not node 2's.
        Received atOneAgain = new Received(1);
        ControlChannel misled =
                start(1, atOneAgain, bundle.node(1), id -> id == 2 ? zero.boundAddress() : addresses.get(id));
        misled.send(2, new ControlFrame.Data(999_999, SECRET));

        await(() -> misled.failedTlsDials(2) >= 1);
        assertThat(misled.refused(Refusal.TLS_FAILED)).isPositive();
        assertThat(atZero.seqsFrom(1)).as("nothing reached node 0").isEmpty();
        assertThat(atZero.hellos).isEmpty();
    }

    /** Node 1 sends {@code count} more frames; all it ever sent arrive at node 0, in order. */
    private void oneSendsAndEverythingArrives(int count) throws InterruptedException {
        for (int i = 0; i < count; i++) {
            one.send(0, new ControlFrame.Data(++sentByOne, SECRET));
        }
        await(() -> atZero.seqsFrom(1).size() >= sentByOne);
        assertThat(atZero.seqsFrom(1)).isEqualTo(oneTo(sentByOne));
    }

    private ControlChannel start(
            int node, Received listener, TlsIdentity identity, IntFunction<InetSocketAddress> peers) {
        ControlChannel channel =
                new ControlChannel(node, new InetSocketAddress("127.0.0.1", 0), peers, 1 << 16, listener, identity);
        opened.add(0, channel);
        channel.start();
        addresses.putIfAbsent(node, channel.boundAddress());
        return channel;
    }

    private static List<Long> oneTo(long last) {
        return java.util.stream.LongStream.rangeClosed(1, last).boxed().toList();
    }

    private static byte[] framed(byte[] frame) {
        return ByteBuffer.allocate(4 + frame.length)
                .putInt(frame.length)
                .put(frame)
                .array();
    }

    private static boolean closedByPeer(Socket socket) {
        try {
            InputStream in = socket.getInputStream();
            while (in.read() >= 0) {
                // whatever a TLS server answers to a stray plain text (an alert, if anything) until it closes
            }
            return true;
        } catch (IOException e) {
            return !(e instanceof java.net.SocketTimeoutException); // a reset: closed too
        }
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            if (java.util.Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
                return i;
            }
        }
        return -1;
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime())
                    .as("condition met within %d s", DEADLINE_SECONDS)
                    .isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    /** What a node's listener saw: the data seqs per sender, the incarnations of the hellos, connections made. */
    private static final class Received implements ControlChannel.Listener {
        final Map<Integer, List<Long>> data = new ConcurrentHashMap<>();
        final List<Long> hellos = new CopyOnWriteArrayList<>();
        final AtomicInteger connections = new AtomicInteger();
        private final int says;
        private final long incarnation;

        /** A listener whose hellos name node {@code says}, of its own incarnation. */
        Received(int says) {
            this(says, incarnation(says));
        }

        /** A listener whose hellos name node {@code says} with {@code incarnation}. */
        Received(int says, long incarnation) {
            this.says = says;
            this.incarnation = incarnation;
        }

        static long incarnation(int node) {
            return 17 + node;
        }

        List<Long> seqsFrom(int node) {
            return data.getOrDefault(node, List.of());
        }

        @Override
        public ControlFrame.Hello helloFor(int peer) {
            return new ControlFrame.Hello(says, incarnation, 1);
        }

        @Override
        public void onConnected(int peer, boolean framesLost) {
            connections.incrementAndGet();
        }

        @Override
        public void onFrame(int from, ControlFrame frame) {
            if (frame instanceof ControlFrame.Hello hello) {
                hellos.add(hello.incarnation());
            } else if (frame instanceof ControlFrame.Data received) {
                data.computeIfAbsent(from, id -> new CopyOnWriteArrayList<>()).add(received.seq());
            }
        }
    }

    /** Forwards one connection to {@code target} and records the bytes the dialing side sent. */
    private static final class RecordingProxy implements AutoCloseable {
        private final ServerSocket server;
        private final InetSocketAddress target;
        private final ByteArrayOutputStream recorded = new ByteArrayOutputStream();
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();

        RecordingProxy(InetSocketAddress target) throws IOException {
            this.target = target;
            this.server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
            Thread acceptor = new Thread(this::serve, "recording-proxy");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        InetSocketAddress address() {
            return new InetSocketAddress(server.getInetAddress(), server.getLocalPort());
        }

        byte[] fromClient() {
            synchronized (recorded) {
                return recorded.toByteArray();
            }
        }

        private void serve() {
            try {
                Socket in = server.accept();
                Socket out = new Socket();
                out.connect(target, 10_000);
                sockets.add(in);
                sockets.add(out);
                pump(in, out, true);
                pump(out, in, false);
            } catch (IOException e) {
                // closed with the test
            }
        }

        private void pump(Socket from, Socket to, boolean record) {
            Thread thread = new Thread(
                    () -> {
                        byte[] buffer = new byte[16384];
                        try {
                            InputStream in = from.getInputStream();
                            OutputStream out = to.getOutputStream();
                            for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                                if (record) {
                                    synchronized (recorded) {
                                        recorded.write(buffer, 0, read);
                                    }
                                }
                                out.write(buffer, 0, read);
                                out.flush();
                            }
                        } catch (IOException e) {
                            // closed with the test
                        }
                    },
                    "recording-proxy-pump");
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket socket : sockets) {
                socket.close();
            }
        }
    }
}
