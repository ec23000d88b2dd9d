package io.eve.samples.process;

import io.eve.Request;
import io.eve.execution.Token;
import io.eve.merkle.Digest;
import io.eve.protocol.Message;
import io.eve.samples.kv.KvRequest;
import io.eve.transport.wire.FrameCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * Raw sockets that misbehave towards a replica's transport port: bytes that are not Eve's, a frame
 * header announcing more than any frame may hold, connections that never finish their handshake, and a
 * well-formed frame whose checksum is wrong. Each attack that the replica must answer by closing the
 * connection reports whether it did. Against the authenticated links of the bft profile (docs/quorum.md,
 * "Authenticators"): well-formed envelopes with tags it cannot compute, protocol messages without an
 * envelope, replays of frames captured on a link, and a slow-loris connection that never finishes a frame.
 *
 * <p>Used from one thread (a {@link SlowLoris} runs its own).
 */
final class HostilePeer implements AutoCloseable {
    /** The handshake's magic, "EVEH" (docs/protocol.md). */
    private static final int HANDSHAKE_MAGIC = 0x45564548;

    private static final int CLOSE_WAIT_MILLIS = 5_000;
    private static final int TAG_BYTES = 32;
    private static final FrameCodec CODEC = new FrameCodec(16 << 20);

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

    /**
     * Names itself {@code as} and sends {@code count} envelopes claiming {@code origin}, each sealing a
     * protocol message that would do harm if accepted (a commit vote for a made-up token, a suspicion of
     * the view) under random tags for each of {@code processes} processes: without the keys no tag is right.
     */
    void sendForgedEnvelopes(int as, int origin, int processes, int count, long seed) throws IOException {
        SplittableRandom random = new SplittableRandom(seed);
        List<byte[]> frames = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Message inside = i % 2 == 0
                    ? new Message.CommitVote(1 + i, origin, Token.of(1 + i, Digest.ZERO, Digest.ZERO, Digest.ZERO))
                    : new Message.Suspect(1 + i);
            byte[] tags = new byte[processes * TAG_BYTES];
            random.nextBytes(tags);
            frames.add(CODEC.encode(new Message.Authenticated(origin, CODEC.encode(inside), tags)));
        }
        replay(as, frames);
    }

    /** Names itself {@code as} and sends {@code count} protocol messages without an envelope. */
    void sendUnsealed(int as, int count) throws IOException {
        List<byte[]> frames = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            frames.add(CODEC.encode(new Message.Suspect(1 + i)));
        }
        replay(as, frames);
    }

    /** Names itself {@code as} and sends {@code frames} (whole frames, length field included) as they are. */
    void replay(int as, List<byte[]> frames) throws IOException {
        try (Socket socket = connect()) {
            OutputStream out = socket.getOutputStream();
            out.write(ByteBuffer.allocate(8).putInt(HANDSHAKE_MAGIC).putInt(as).array());
            for (byte[] frame : frames) {
                out.write(frame);
            }
            out.flush();
        }
    }

    /**
     * The whole frames of a stream captured on a link from its first byte: the dialer's handshake, then
     * frames, each a length field and that many bytes; a last frame cut short is left out.
     */
    static List<byte[]> frames(byte[] stream) {
        List<byte[]> frames = new ArrayList<>();
        ByteBuffer buffer = ByteBuffer.wrap(stream);
        buffer.position(Math.min(8, stream.length));
        while (buffer.remaining() >= Integer.BYTES) {
            int length = buffer.getInt(buffer.position());
            if (length < 0 || buffer.remaining() - Integer.BYTES < length) {
                break;
            }
            byte[] frame = new byte[Integer.BYTES + length];
            buffer.get(frame);
            frames.add(frame);
        }
        return frames;
    }

    /** The message a whole frame holds. */
    static Message decode(byte[] frame) {
        return CODEC.decode(frame);
    }

    /**
     * Names itself {@code as} and starts a frame it sends one byte every {@code intervalMillis}, so the
     * frame never completes: the replica must close the connection when its frame timeout runs out.
     */
    SlowLoris startSlowLoris(int as, long intervalMillis) throws IOException {
        Request request = new Request(as, 1, new byte[2_000]);
        byte[] frame = CODEC.encode(new Message.ClientRequest(request));
        Socket socket = connect();
        socket.getOutputStream()
                .write(ByteBuffer.allocate(8).putInt(HANDSHAKE_MAGIC).putInt(as).array());
        SlowLoris loris = new SlowLoris(socket, frame, intervalMillis);
        loris.thread.start();
        return loris;
    }

    /** A connection that trickles a frame until the replica closes it; records when that happened. */
    static final class SlowLoris implements AutoCloseable {
        private final Socket socket;
        private final long startedAt = System.nanoTime();
        private final Thread thread;
        private volatile long closedAfterNanos = -1;
        private volatile int sent;

        private SlowLoris(Socket socket, byte[] frame, long intervalMillis) {
            this.socket = socket;
            this.thread = new Thread(() -> trickle(frame, intervalMillis), "slow-loris");
            this.thread.setDaemon(true);
        }

        private void trickle(byte[] frame, long intervalMillis) {
            try {
                socket.setSoTimeout((int) intervalMillis);
                OutputStream out = socket.getOutputStream();
                InputStream in = socket.getInputStream();
                for (int i = 0; i < frame.length; i++) {
                    out.write(frame[i]);
                    out.flush();
                    sent = i + 1;
                    try {
                        if (in.read() < 0) {
                            break; // the replica closed the connection
                        }
                    } catch (SocketTimeoutException stillOpen) {
                        // the pause between two bytes
                    }
                }
            } catch (IOException closedOrReset) {
                // the replica closed the connection (or reset it)
            }
            closedAfterNanos = System.nanoTime() - startedAt;
        }

        /** How long the replica kept the connection open, or empty while it still does. */
        Optional<Duration> closedAfter() {
            long nanos = closedAfterNanos;
            return nanos < 0 ? Optional.empty() : Optional.of(Duration.ofNanos(nanos));
        }

        /** Bytes of the frame sent so far. */
        int sent() {
            return sent;
        }

        @Override
        public void close() throws IOException {
            socket.close();
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
