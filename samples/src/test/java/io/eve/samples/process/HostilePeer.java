package io.eve.samples.process;

import io.eve.Request;
import io.eve.protocol.Message;
import io.eve.samples.kv.KvRequest;
import io.eve.transport.wire.FrameCodec;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Raw sockets that misbehave towards a replica's transport port: bytes that are not Eve's, a frame
 * header announcing more than any frame may hold, connections that never finish their handshake, and a
 * well-formed frame whose checksum is wrong. Each attack that the replica must answer by closing the
 * connection reports whether it did.
 *
 * <p>Used from one thread.
 */
final class HostilePeer implements AutoCloseable {
    /** The handshake's magic, "EVEH" (docs/protocol.md). */
    private static final int HANDSHAKE_MAGIC = 0x45564548;

    private static final int CLOSE_WAIT_MILLIS = 5_000;

    private final InetSocketAddress target;
    private final List<Socket> halfOpen = new ArrayList<>();

    HostilePeer(InetSocketAddress target) {
        this.target = target;
    }

    /** Sends random bytes that do not start with the handshake; true if the replica then closed the connection. */
    boolean sendGarbage(long seed) throws IOException {
        byte[] garbage = new byte[256];
        new SplittableRandom(seed).nextBytes(garbage);
        garbage[0] = 0x13;
        try (Socket socket = connect()) {
            socket.getOutputStream().write(garbage);
            return closedByPeer(socket);
        }
    }

    /** Completes the handshake, then announces a frame of about 2 GiB; true if the replica closed the connection. */
    boolean sendGiantFrameHeader(int node) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(8 + 10)
                .putInt(HANDSHAKE_MAGIC)
                .putInt(node)
                .putInt(Integer.MAX_VALUE - 16)
                .putInt(FrameCodec.MAGIC)
                .put((byte) FrameCodec.VERSION)
                .put((byte) 1);
        try (Socket socket = connect()) {
            socket.getOutputStream().write(header.array());
            return closedByPeer(socket);
        }
    }

    /**
     * Completes the handshake, then sends a well-formed client request whose checksum has one bit flipped;
     * true if the replica closed the connection.
     */
    boolean sendBadChecksum(int node) throws IOException {
        Request request = new Request(node, 1, KvRequest.encode(new KvRequest.SeededUpdate(0, 42)));
        byte[] frame = new FrameCodec(FrameCodec.SMALLEST_MAXIMUM).encode(new Message.ClientRequest(request));
        frame[frame.length - 1] ^= 0x01;
        byte[] bytes = ByteBuffer.allocate(8 + frame.length)
                .putInt(HANDSHAKE_MAGIC)
                .putInt(node)
                .put(frame)
                .array();
        try (Socket socket = connect()) {
            socket.getOutputStream().write(bytes);
            return closedByPeer(socket);
        }
    }

    /** Opens {@code count} connections that send half a handshake and then nothing; they stay open until closed. */
    void openHalfOpen(int count) throws IOException {
        byte[] halfHandshake = ByteBuffer.allocate(4).putInt(HANDSHAKE_MAGIC).array();
        for (int i = 0; i < count; i++) {
            Socket socket = connect();
            halfOpen.add(socket);
            socket.getOutputStream().write(halfHandshake);
        }
    }

    @Override
    public void close() throws IOException {
        for (Socket socket : halfOpen) {
            socket.close();
        }
        halfOpen.clear();
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket();
        socket.connect(target, 2_000);
        socket.setSoTimeout(CLOSE_WAIT_MILLIS);
        return socket;
    }

    /** Reads until the end of the stream: the replica closed the connection, or reset it. */
    private static boolean closedByPeer(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        byte[] sink = new byte[1024];
        try {
            while (in.read(sink) >= 0) {
                // The replica has nothing to say to this peer; whatever it sends is skipped.
            }
            return true;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }
}
