package io.eve.rdma.control;

import io.eve.transport.netty.SocketLayer;
import io.eve.transport.netty.tls.TlsIdentity;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control channel of one node: it listens, dials each peer it sends to (one connection per direction
 * and pair, so frames of a pair arrive in order) and opens every connection with the {@link
 * ControlFrame.Hello} its {@link Listener} supplies. Frames are length-prefixed. A connection that sends a
 * malformed frame, or anything before its hello, is closed with a logged reason. Frames to a peer that
 * does not listen yet wait, and the dial is retried with backoff until it succeeds or the channel closes;
 * at most {@value #PENDING_LIMIT} wait per peer, the oldest dropped first. Whenever frames may have been
 * lost (dropped from the queue, or written to a connection that later broke) the next connection says so,
 * and the transport resends what it keeps.
 *
 * <p>With a {@link TlsIdentity} every connection runs mutual TLS 1.3 first, as {@code NettyTransport}'s do
 * (see ControlTls): a dialed node must present its own certificate before the hello goes out, and an
 * accepted connection must present a node's certificate and name that node in its hello, else it is closed,
 * counted ({@link #refused}) and logged, and nothing it sent reaches the listener. A refused connection
 * displaces nothing: accepted connections never replace one another.
 *
 * <p>Thread-safe. The listener is called on Netty's event loop.
 */
public final class ControlChannel implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ControlChannel.class);
    private static final int PENDING_LIMIT = 100_000;
    private static final long FIRST_REDIAL_MILLIS = 20;
    private static final long MAX_REDIAL_MILLIS = 1_000;
    /**
     * How long an accepted connection may stay open without a hello, from its accept: longer than a TLS
     * handshake may take (30 s, for a cold JVM on a loaded machine), so that only a peer that says nothing is cut.
     */
    static final long HELLO_TIMEOUT_MILLIS = 40_000;

    private final int self;
    private final InetSocketAddress listen;
    private final IntFunction<InetSocketAddress> peers;
    private final int maxFrameBytes;
    private final long helloTimeoutMillis;
    private final Listener listener;
    private final EventLoopGroup group;
    /** Mutual TLS on every connection, or {@code null} for plain TCP. */
    private final ControlTls tls;

    private final Map<Integer, Link> links = new ConcurrentHashMap<>();
    private final Set<Channel> accepted = ConcurrentHashMap.newKeySet();
    private volatile Channel server;
    private volatile boolean closed;

    /** Why a control channel refused a connection (with TLS only). */
    public enum Refusal {
        /**
         * The TLS handshake failed (no TLS, no certificate of the cluster's CA, a dialed node answered with
         * another certificate, no handshake within {@value TlsIdentity#HANDSHAKE_TIMEOUT_MILLIS} ms) or a TLS
         * record did not authenticate.
         */
        TLS_FAILED,
        /** The peer's certificate is not a node's, or names another node than its hello. */
        IMPOSTOR
    }

    /** What the channel reports, on Netty's event loop. */
    public interface Listener {
        /** The hello that opens a new connection to {@code peer}. */
        ControlFrame.Hello helloFor(int peer);

        /**
         * A connection to {@code peer} came up and carried every frame that waited for it; {@code framesLost}
         * if frames sent to {@code peer} before may not have arrived (an earlier connection existed, or the
         * queue overflowed).
         */
        void onConnected(int peer, boolean framesLost);

        void onFrame(int from, ControlFrame frame);
    }

    /** A channel on plain TCP. */
    public ControlChannel(
            int self,
            InetSocketAddress listen,
            IntFunction<InetSocketAddress> peers,
            int maxFrameBytes,
            Listener listener) {
        this(self, listen, peers, maxFrameBytes, listener, null);
    }

    /** A channel whose connections run mutual TLS 1.3 as {@code tls}, or plain TCP if it is {@code null}. */
    public ControlChannel(
            int self,
            InetSocketAddress listen,
            IntFunction<InetSocketAddress> peers,
            int maxFrameBytes,
            Listener listener,
            TlsIdentity tls) {
        this(self, listen, peers, maxFrameBytes, listener, tls, HELLO_TIMEOUT_MILLIS);
    }

    /** As above, with the time an accepted connection has to say hello (tests). */
    ControlChannel(
            int self,
            InetSocketAddress listen,
            IntFunction<InetSocketAddress> peers,
            int maxFrameBytes,
            Listener listener,
            TlsIdentity tls,
            long helloTimeoutMillis) {
        if (helloTimeoutMillis < 1) {
            throw new IllegalArgumentException("helloTimeoutMillis must be at least 1, got " + helloTimeoutMillis);
        }
        this.helloTimeoutMillis = helloTimeoutMillis;
        this.self = self;
        this.listen = Objects.requireNonNull(listen, "listen");
        this.peers = Objects.requireNonNull(peers, "peers");
        this.maxFrameBytes = maxFrameBytes;
        this.listener = Objects.requireNonNull(listener, "listener");
        this.group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        this.tls = tls == null ? null : new ControlTls(self, tls, id -> peers.apply(id) != null);
    }

    /** An outgoing connection: the channel once up, and the frames that wait for it. */
    private static final class Link {
        final Queue<byte[]> pending = new ArrayDeque<>();
        Channel channel;
        boolean dialing;
        boolean framesLost;
        long redialMillis = FIRST_REDIAL_MILLIS;
        volatile long failedDials;
    }

    public void start() {
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        if (closed) {
                            channel.close();
                            return;
                        }
                        accepted.add(channel);
                        channel.closeFuture().addListener(done -> accepted.remove(channel));
                        if (tls != null) {
                            tls.onAccepted(channel);
                        }
                        channel.pipeline().addLast(new LengthFieldBasedFrameDecoder(maxFrameBytes, 0, 4, 0, 4));
                        channel.pipeline().addLast(new Inbound(self, listener, tls, helloTimeoutMillis));
                    }
                });
        try {
            server = bootstrap.bind(listen).sync().channel();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while binding " + listen, e);
        } catch (RuntimeException e) {
            throw new IllegalStateException(
                    "node " + self + " cannot listen for control connections on " + listen + ": " + e.getMessage(), e);
        }
    }

    /** Where this channel listens (with the real port when it was 0), or {@code null} before start. */
    public InetSocketAddress boundAddress() {
        Channel channel = server;
        return channel == null ? null : (InetSocketAddress) channel.localAddress();
    }

    /** How many dials of {@code peer} failed (nobody listened, or it could not be reached). */
    public long failedDials(int peer) {
        Link link = links.get(peer);
        return link == null ? 0 : link.failedDials;
    }

    /** Sends asynchronously, in order per peer; waits while {@code to} does not listen, dropped if it has no address. */
    public void send(int to, ControlFrame frame) {
        if (closed) {
            return;
        }
        InetSocketAddress address = peers.apply(to);
        if (address == null) {
            // Nowhere to dial yet: should the peer appear, its first connection must bring this frame back.
            Link link = links.computeIfAbsent(to, id -> new Link());
            synchronized (link) {
                link.framesLost = true;
            }
            return;
        }
        byte[] bytes = ControlCodec.encode(frame);
        if (bytes.length + 4 > maxFrameBytes) {
            throw new IllegalArgumentException(
                    "a control frame of " + bytes.length + " bytes exceeds the maximum of " + maxFrameBytes);
        }
        Link link = links.computeIfAbsent(to, id -> new Link());
        synchronized (link) {
            if (link.channel != null && link.channel.isActive()) {
                write(link.channel, bytes);
                return;
            }
            if (link.pending.size() >= PENDING_LIMIT) {
                link.pending.poll();
                link.framesLost = true;
            }
            link.pending.add(bytes);
            if (!link.dialing) {
                dial(to, link, address);
            }
        }
    }

    private static void write(Channel channel, byte[] bytes) {
        ByteBuf framed =
                Unpooled.buffer(4 + bytes.length).writeInt(bytes.length).writeBytes(bytes);
        channel.writeAndFlush(framed);
    }

    private void dial(int peer, Link link, InetSocketAddress address) {
        link.dialing = true;
        Bootstrap bootstrap = new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 2_000)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        if (tls != null) {
                            tls.onDialing(channel, peer, address);
                        }
                        channel.pipeline().addLast(new LengthFieldBasedFrameDecoder(maxFrameBytes, 0, 4, 0, 4));
                        if (tls != null) {
                            channel.pipeline().addLast(tls.newFailureHandler(peer));
                        }
                    }
                });
        ChannelFuture connecting = bootstrap.connect(address);
        connecting.addListener(future -> {
            Channel channel = connecting.channel();
            Optional<ConnectException> self =
                    future.isSuccess() ? SocketLayer.selfConnection(channel) : Optional.empty();
            if (self.isPresent()) {
                // Nobody listens on the peer's port yet and the dial drew that very port: a failed dial.
                onDialed(peer, link, channel, false, self.get());
                return;
            }
            if (tls == null || !future.isSuccess()) {
                onDialed(peer, link, channel, future.isSuccess(), future.cause());
                return;
            }
            // Nothing goes out, the hello included, before the node dialed has proven who it is.
            ControlTls.handshake(channel).addListener(done -> {
                if (!done.isSuccess()) {
                    tls.onFailed(channel, peer, done.cause());
                }
                onDialed(peer, link, channel, done.isSuccess(), done.cause());
            });
        });
    }

    private void onDialed(int peer, Link link, Channel channel, boolean connected, Throwable cause) {
        boolean framesLost;
        synchronized (link) {
            if (!connected || closed) {
                channel.close();
                onDialFailed(peer, link, cause);
                return;
            }
            link.dialing = false;
            link.redialMillis = FIRST_REDIAL_MILLIS;
            write(channel, ControlCodec.encode(listener.helloFor(peer)));
            // What an earlier connection carried may have died with it.
            framesLost = link.framesLost || link.channel != null;
            link.framesLost = false;
            link.channel = channel;
            LOG.debug(
                    "node {}: control connection to node {} at {} up ({} frames waiting, frames lost before: {})",
                    self,
                    peer,
                    channel.remoteAddress(),
                    link.pending.size(),
                    framesLost);
            channel.closeFuture()
                    .addListener(closed -> LOG.debug(
                            "node {}: control connection to node {} at {} closed",
                            self,
                            peer,
                            channel.remoteAddress()));
            for (byte[] bytes = link.pending.poll(); bytes != null; bytes = link.pending.poll()) {
                write(channel, bytes);
            }
        }
        listener.onConnected(peer, framesLost);
    }

    /** Keeps the waiting frames (the peer may not listen yet) and dials again after a growing pause. */
    private void onDialFailed(int peer, Link link, Throwable cause) {
        link.failedDials++;
        if (closed) {
            link.dialing = false;
            link.pending.clear();
            return;
        }
        LOG.debug(
                "node {}: cannot reach node {} ({}), dialling again in {} ms",
                self,
                peer,
                cause == null ? "no cause" : cause.toString(),
                link.redialMillis);
        long pause = link.redialMillis;
        link.redialMillis = Math.min(pause * 2, MAX_REDIAL_MILLIS);
        group.schedule(() -> redial(peer, link), pause, TimeUnit.MILLISECONDS);
    }

    private void redial(int peer, Link link) {
        synchronized (link) {
            InetSocketAddress address = peers.apply(peer);
            if (closed || address == null) {
                // The peer left the cluster (or we closed): nobody will take these frames.
                link.dialing = false;
                link.framesLost |= !link.pending.isEmpty();
                link.pending.clear();
                return;
            }
            dial(peer, link, address);
        }
    }

    /**
     * Drops the connection to {@code peer}, if any, because it leads to a process that is gone: {@code peer}
     * said hello from a new incarnation. Such a connection can stay open for a long while (nothing is read
     * from it, and its end may never be closed: a machine that lost power, a process of the same JVM),
     * and everything written into it is lost. The next frame to {@code peer} dials again, and that
     * connection reports the frames lost ({@link Listener#onConnected}) so the transport resends them.
     */
    public void reconnect(int peer) {
        Link link = links.get(peer);
        if (link == null) {
            return;
        }
        synchronized (link) {
            if (link.channel == null) {
                return;
            }
            LOG.debug(
                    "node {}: dropping the control connection to node {} at {}",
                    self,
                    peer,
                    link.channel.remoteAddress());
            link.channel.close();
            link.channel = null;
            link.framesLost = true;
        }
    }

    /** How many connections this channel refused for {@code reason} (always 0 without TLS). */
    public long refused(Refusal reason) {
        return tls == null ? 0 : tls.refused(reason);
    }

    /** How many accepted connections claimed to be {@code peer} in their hello and were refused as impostors. */
    public long refusedImpostors(int peer) {
        return tls == null ? 0 : tls.refusedImpostors(peer);
    }

    /** How many dials of {@code peer} failed in the TLS handshake (its address answered without its certificate). */
    public long failedTlsDials(int peer) {
        return tls == null ? 0 : tls.failedTlsDials(peer);
    }

    /** Stops listening and closes every connection, the accepted ones included, before the event loop stops. */
    @Override
    public void close() {
        closed = true;
        if (server != null) {
            server.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
        }
        for (Channel channel : accepted) {
            channel.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
        }
        links.values().forEach(link -> {
            synchronized (link) {
                if (link.channel != null) {
                    link.channel.close();
                }
            }
        });
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        if (tls != null) {
            tls.close();
        }
    }
}
