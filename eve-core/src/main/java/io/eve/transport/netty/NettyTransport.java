package io.eve.transport.netty;

import io.eve.protocol.Message;
import io.eve.transport.SocketIo;
import io.eve.transport.Transport;
import io.eve.transport.netty.tls.PeerIdentity;
import io.eve.transport.netty.tls.RefusalLog;
import io.eve.transport.netty.tls.TlsIdentity;
import io.eve.transport.wire.FrameCodec;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.FastThreadLocal;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Transport} over TCP, with Netty (DESIGN.md section 10). Each message travels as one frame of
 * {@link FrameCodec}. A node dials the peers it sends to and keeps one connection per peer, so the
 * messages of one pair arrive in order; a node that does not listen (a client) is answered over the
 * connection it opened, which it names with a handshake. A malformed frame or handshake closes that
 * connection with a logged reason; the node keeps serving everyone else. Messages to a node that cannot
 * be reached are dropped, as on any network; the protocols retransmit what matters.
 *
 * <p>With {@link Builder#tls} every connection runs mutual TLS 1.3 (the JDK's provider) first: a peer
 * without a certificate of the cluster's CA never gets a byte through, a dialed node must present its own
 * certificate, and the id an accepted connection names in its handshake must be one its certificate grants
 * (a node its own, a client one of its ids), as must the client id of every request it sends; otherwise the
 * connection is closed and counted ({@link ClosedBecause#TLS_FAILED}, {@link ClosedBecause#IMPOSTOR}), and
 * logged at most once per claimed id every {@value #IMPOSTOR_LOG_SECONDS} s. Such a connection never
 * displaces an authenticated one.
 *
 * <p>Thread-safe. Incoming messages are delivered on Netty's event loop, one connection at a time.
 */
public final class NettyTransport implements Transport {
    private static final Logger LOG = LoggerFactory.getLogger(NettyTransport.class);
    private static final int PENDING_LIMIT = 10_000;
    private static final long REDIAL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long IMPOSTOR_LOG_SECONDS = 10;

    private static final io.netty.util.AttributeKey<Boolean> TLS_FAILURE_COUNTED =
            io.netty.util.AttributeKey.valueOf("eve.tls-failure-counted");

    private final int self;
    private final InetSocketAddress listen;
    private final IntFunction<InetSocketAddress> peers;
    private final FrameCodec codec;
    private final long handshakeTimeoutMillis;
    private final long frameTimeoutMillis;
    private final SocketLayer layer;
    private final EventLoopGroup group;
    private final ConnectionLossLog losses;
    private final TlsIdentity tls;
    /**
     * With TLS: where the JDK's handshake work (certificate checks, key exchange) runs, so that a burst of
     * new connections does not hold the event loop that carries the established links.
     */
    private final java.util.concurrent.ExecutorService handshakes;
    /** Refusals, logged at most once per claimed id every {@link #IMPOSTOR_LOG_SECONDS}. */
    private final RefusalLog refusals = new RefusalLog(LOG, IMPOSTOR_LOG_SECONDS);

    private final Map<Integer, Link> outbound = new ConcurrentHashMap<>();
    private final Map<Integer, Outbox> inbound = new ConcurrentHashMap<>();
    /** Accepted connections from nodes this one dials itself: they only deliver (see {@link #onHandshake}). */
    private final Set<Channel> fromPeers = ConcurrentHashMap.newKeySet();

    private final AtomicLong dials = new AtomicLong();
    private final AtomicLong selfConnections = new AtomicLong();
    private final Map<ClosedBecause, AtomicLong> closedConnections = new EnumMap<>(ClosedBecause.class);
    /** Also the lock under which {@code inbound} changes and answers to undialable nodes are written. */
    private final HeldMessages held = new HeldMessages();
    // Per event loop: the client outboxes with replies queued by this thread's current task (flush()).
    private final FastThreadLocal<ArrayList<Outbox>> deferredHere = new FastThreadLocal<>() {
        @Override
        protected ArrayList<Outbox> initialValue() {
            return new ArrayList<>();
        }
    };

    private volatile Receiver receiver;
    private volatile Channel server;
    private volatile boolean closed;

    /** Why the transport closed a connection (for {@link #closedConnections} and metrics). */
    public enum ClosedBecause {
        /** The first bytes of an accepted connection were not a handshake. */
        BAD_HANDSHAKE,
        /** An accepted connection did not name itself in time. */
        HANDSHAKE_TIMEOUT,
        /** A frame failed a check of the wire format (docs/protocol.md). */
        BAD_FRAME,
        /** A frame started and did not finish in time (a slow or stuck peer). */
        FRAME_TIMEOUT,
        /** The connection failed (a reset, an I/O error). */
        CONNECTION_ERROR,
        /**
         * With TLS: the TLS handshake failed (not TLS, no certificate of the cluster's CA, a dialed node
         * answered with another certificate) or the TLS layer found a corrupted, truncated or replayed record.
         */
        TLS_FAILED,
        /** With TLS: the peer named an id, in its handshake or a request, its certificate does not grant. */
        IMPOSTOR
    }

    private NettyTransport(Builder builder) {
        for (ClosedBecause reason : ClosedBecause.values()) {
            closedConnections.put(reason, new AtomicLong());
        }
        this.self = builder.self;
        this.listen = builder.listen;
        this.peers = builder.peers;
        this.codec = new FrameCodec(builder.maxFrameBytes);
        this.handshakeTimeoutMillis = builder.handshakeTimeoutMillis;
        this.frameTimeoutMillis = builder.frameTimeoutMillis;
        this.layer = SocketLayer.of(builder.io);
        this.group = new MultiThreadIoEventLoopGroup(builder.ioThreads, layer.handlers());
        this.losses = builder.losses != null ? builder.losses : new ConnectionLossLog();
        this.tls = builder.tls;
        if (tls != null) {
            // Built now, so that the JDK's refusal of the identity stops the build rather than a connection.
            tls.serverContext();
            tls.clientContext();
        }
        this.handshakes = builder.tls == null
                ? null
                : java.util.concurrent.Executors.newFixedThreadPool(2, runnable -> {
                    Thread thread = new Thread(runnable, "eve-tls-handshake-" + builder.self);
                    thread.setDaemon(true);
                    return thread;
                });
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Settings of a transport. Not thread-safe. */
    public static final class Builder {
        private int self = -1;
        private InetSocketAddress listen;
        private IntFunction<InetSocketAddress> peers = id -> null;
        private int maxFrameBytes = 16 << 20;
        private int ioThreads = 1;
        private SocketIo io = SocketIo.AUTO;
        private long handshakeTimeoutMillis = 10_000;
        private long frameTimeoutMillis = 30_000;
        private ConnectionLossLog losses;
        private TlsIdentity tls;

        private Builder() {}

        /**
         * Runs mutual TLS 1.3 on every connection with this identity (see the class comment); peers must
         * present certificates of the same CA. Default: plain TCP.
         */
        public Builder tls(TlsIdentity identity) {
            this.tls = Objects.requireNonNull(identity, "identity");
            return this;
        }

        public Builder self(int id) {
            this.self = id;
            return this;
        }

        /** Where to accept connections; a client leaves it unset. */
        public Builder listen(InetSocketAddress address) {
            this.listen = Objects.requireNonNull(address, "address");
            return this;
        }

        /** Where each dialable node listens ({@code null} for nodes that do not listen). */
        public Builder peers(IntFunction<InetSocketAddress> peers) {
            this.peers = Objects.requireNonNull(peers, "peers");
            return this;
        }

        public Builder peers(Map<Integer, InetSocketAddress> peers) {
            Map<Integer, InetSocketAddress> copy = Map.copyOf(peers);
            return peers(copy::get);
        }

        public Builder maxFrameBytes(int bytes) {
            this.maxFrameBytes = bytes;
            return this;
        }

        /** The socket layer (decision 0045). Default {@link SocketIo#AUTO}: native epoll where it loads, else NIO. */
        public Builder io(SocketIo io) {
            this.io = Objects.requireNonNull(io, "io");
            return this;
        }

        public Builder ioThreads(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("ioThreads must be at least 1, got " + threads);
            }
            this.ioThreads = threads;
            return this;
        }

        /** How long an accepted connection may take to name its node before it is closed. */
        public Builder handshakeTimeoutMillis(long millis) {
            if (millis < 1) {
                throw new IllegalArgumentException("handshakeTimeoutMillis must be positive, got " + millis);
            }
            this.handshakeTimeoutMillis = millis;
            return this;
        }

        /**
         * How long a frame that has started may take to arrive in full (slow-loris protection); the
         * clock restarts with every complete frame. Default 30 s: room for a maximum-size frame over a
         * slow link.
         */
        public Builder frameTimeoutMillis(long millis) {
            if (millis < 1) {
                throw new IllegalArgumentException("frameTimeoutMillis must be positive, got " + millis);
            }
            this.frameTimeoutMillis = millis;
            return this;
        }

        /**
         * Where failed connections are reported; transports of one process that talk to the same nodes
         * share one, so that a peer's crash is reported once. Default: one of this transport's own.
         */
        public Builder connectionLossLog(ConnectionLossLog log) {
            this.losses = Objects.requireNonNull(log, "log");
            return this;
        }

        public NettyTransport build() {
            if (self < 0) {
                throw new IllegalArgumentException("self must be set to this node's id (0 or more), got " + self);
            }
            return new NettyTransport(this);
        }
    }

    /** An outgoing connection to a peer: the channel once up, and what waits for it meanwhile. */
    private final class Link {
        final int peer;
        final Queue<Message> pending = new ArrayDeque<>();
        Channel channel;
        /** The channel's outbox, set with it. */
        Outbox outbox;

        boolean dialing;
        long lastDial;

        Link(int peer) {
            this.peer = peer;
        }
    }

    @Override
    public int self() {
        return self;
    }

    /** The socket layer this transport runs on: {@link SocketIo#EPOLL} or {@link SocketIo#NIO}. */
    public SocketIo io() {
        return layer.io();
    }

    /** The address this transport listens on (with the real port when it was 0), or {@code null}. */
    public InetSocketAddress boundAddress() {
        Channel channel = server;
        return channel == null ? null : (InetSocketAddress) channel.localAddress();
    }

    @Override
    public void start(Receiver receiver) {
        this.receiver = Objects.requireNonNull(receiver, "receiver");
        if (listen == null) {
            return;
        }
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(group)
                .channel(layer.serverChannel())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        if (tls != null) {
                            SslHandler handler = tls.newServerHandler(channel.alloc(), handshakes);
                            handler.handshakeFuture().addListener(done -> {
                                if (!done.isSuccess()) {
                                    onTlsFailed(-1, channel, done.cause());
                                }
                            });
                            channel.pipeline().addLast(handler);
                        }
                        channel.pipeline().addLast(new HandshakeDecoder(NettyTransport.this, handshakeTimeoutMillis));
                        channel.pipeline().addLast(new FrameDecoder(NettyTransport.this, codec, frameTimeoutMillis));
                        channel.pipeline().addLast(new Delivery(NettyTransport.this));
                    }
                });
        try {
            server = bootstrap.bind(listen).sync().channel();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while binding " + listen, e);
        } catch (RuntimeException e) {
            throw new IllegalStateException("node " + self + " cannot listen on " + listen + ": " + e.getMessage(), e);
        }
        LOG.info("node {}: listening on {}", self, boundAddress());
    }

    @Override
    public void send(int to, Message message) {
        if (closed) {
            return;
        }
        InetSocketAddress address = peers.apply(to);
        if (address == null) {
            synchronized (held) {
                Outbox accepted = inbound.get(to);
                if (accepted != null && accepted.channel().isActive()) {
                    // A client: its replies of one commit go out together (Outbox.addDeferred), at the end of
                    // the read that released them or sooner (flush()).
                    accepted.addDeferred(codec.encode(message));
                    if (accepted.listForEarlyDrain()) {
                        deferredHere.get().add(accepted);
                    }
                } else if (!held.hold(to, codec.encode(message), System.nanoTime())) {
                    LOG.debug("node {}: no connection from node {} and no room to hold its message", self, to);
                }
            }
            return;
        }
        // Replies held on this thread leave before what the task sends to a replica after them.
        flush();
        Link link = outbound.computeIfAbsent(to, Link::new);
        synchronized (link) {
            if (link.channel != null && link.channel.isActive()) {
                link.outbox.add(codec.encode(message));
                return;
            }
            if (link.pending.size() >= PENDING_LIMIT) {
                link.pending.poll();
            }
            link.pending.add(message);
            if (!link.dialing && System.nanoTime() - link.lastDial >= REDIAL_NANOS) {
                dial(link, address);
            }
        }
    }

    private void dial(Link link, InetSocketAddress address) {
        dials.incrementAndGet();
        link.dialing = true;
        link.lastDial = System.nanoTime();
        Bootstrap bootstrap = new Bootstrap()
                .group(group)
                .channel(layer.channel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 2_000)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        if (tls != null) {
                            // The peer host names the node dialed: IdentityTrustManager accepts only its certificate.
                            channel.pipeline()
                                    .addLast(tls.newClientHandler(
                                            channel.alloc(), link.peer, address.getPort(), handshakes));
                        }
                        channel.pipeline().addLast(new FrameDecoder(NettyTransport.this, codec, frameTimeoutMillis));
                        channel.pipeline().addLast(new Delivery(NettyTransport.this, link.peer));
                    }
                });
        ChannelFuture connecting = bootstrap.connect(address);
        connecting.addListener(future -> {
            Channel channel = connecting.channel();
            Optional<ConnectException> self =
                    future.isSuccess() ? SocketLayer.selfConnection(channel) : Optional.empty();
            if (self.isPresent()) {
                // Before the channel is active: neither the hello nor a TLS handshake has gone out.
                channel.attr(TLS_FAILURE_COUNTED).set(Boolean.TRUE);
                channel.close();
                selfConnections.incrementAndGet();
                onDialed(link, channel, false, self.get());
                return;
            }
            SslHandler handler = future.isSuccess() ? channel.pipeline().get(SslHandler.class) : null;
            if (handler == null) {
                onDialed(link, channel, future.isSuccess(), future.cause());
                return;
            }
            // Nothing goes out (not even the handshake) before the node dialed has proven who it is.
            handler.handshakeFuture().addListener(done -> {
                if (!done.isSuccess()) {
                    onTlsFailed(link.peer, channel, done.cause());
                    channel.close();
                }
                onDialed(link, channel, done.isSuccess(), done.cause());
            });
        });
    }

    /** The TLS handshake with {@code peer} (-1: not yet named) failed; the connection is being closed. */
    private void onTlsFailed(int peer, Channel channel, Throwable cause) {
        if (channel.attr(TLS_FAILURE_COUNTED).setIfAbsent(Boolean.TRUE) != null) {
            return; // the handshake's failure and the exception that caused it are one failure
        }
        closed(ClosedBecause.TLS_FAILED);
        refusals.warn(
                peer,
                "node {}: TLS with {} ({}) failed, closing: {}",
                self,
                peer < 0 ? "an accepted connection" : "node " + peer,
                channel.remoteAddress(),
                cause == null ? "closed" : cause.getMessage());
    }

    /**
     * The peer of {@code channel}, authenticated as {@code identity}, named itself {@code claimed} (or sent a
     * request of that client id), which its certificate does not grant: the connection is closed and counted.
     */
    void refuseImpostor(int claimed, PeerIdentity identity, Channel channel) {
        closed(ClosedBecause.IMPOSTOR);
        refusals.warn(
                claimed,
                "node {}: {} authenticated as {} claimed to be {}; closing",
                self,
                channel.remoteAddress(),
                identity,
                claimed);
        channel.close();
    }

    /** Whether connections run TLS: then accepted connections carry a certificate identity. */
    boolean tls() {
        return tls != null;
    }

    /** Whether {@code id} is a node this one dials (a replica), as opposed to a client. */
    boolean isDialable(int id) {
        return peers.apply(id) != null;
    }

    private void onDialed(Link link, Channel channel, boolean connected, Throwable cause) {
        synchronized (link) {
            link.dialing = false;
            if (!connected || closed) {
                LOG.debug(
                        "node {}: cannot reach node {}: {}",
                        self,
                        link.peer,
                        cause == null ? "closed" : cause.toString());
                link.pending.clear();
                if (closed) {
                    channel.close();
                }
                return;
            }
            Outbox outbox = new Outbox(channel);
            outbox.add(HandshakeDecoder.hello(self));
            link.channel = channel;
            link.outbox = outbox;
            losses.onConnected(link.peer);
            for (Message message = link.pending.poll(); message != null; message = link.pending.poll()) {
                outbox.add(codec.encode(message));
            }
        }
    }

    /**
     * A node named itself on an accepted connection. A node this one can dial (a replica in the
     * configuration) gets its messages over the dialed link, so the connection only delivers, and one
     * naming the same node never replaces another: otherwise any connection merely claiming to be
     * replica 1 would cut replica 1's real one (what it then sends is checked like anything else, by the
     * message authenticators where the profile has them). For anyone else (clients), answers go back on the
     * latest connection that named it.
     */
    void onHandshake(int from, Channel channel) {
        losses.onConnected(from);
        if (peers.apply(from) != null) {
            fromPeers.add(channel);
            channel.closeFuture().addListener(future -> fromPeers.remove(channel));
            return;
        }
        Outbox outbox = new Outbox(channel);
        synchronized (held) {
            Outbox previous = inbound.put(from, outbox);
            if (previous != null && previous.channel() != channel) {
                previous.channel().close();
            }
            for (byte[] frame : held.release(from, System.nanoTime())) {
                outbox.add(frame);
            }
        }
        channel.closeFuture().addListener(future -> inbound.remove(from, outbox));
    }

    /**
     * Drains the client outboxes this thread queued replies on (when it is their event loop) at once: called
     * by the runtime when a burst of replies is complete, at the end of each read of a connection, and before
     * a frame to a replica leaves, so that replies keep the order they were sent in.
     */
    @Override
    public void flush() {
        ArrayList<Outbox> outboxes = deferredHere.getIfExists();
        if (outboxes == null || outboxes.isEmpty()) {
            return;
        }
        // By index: a drain may (through a handler) queue more.
        for (int i = 0; i < outboxes.size(); i++) {
            outboxes.get(i).drainEarly();
        }
        outboxes.clear();
    }

    void deliver(int from, Message message) {
        Receiver current = receiver;
        if (current != null && !closed) {
            current.onMessage(from, message);
        }
    }

    /** How many connections this transport closed for {@code reason} since it started. */
    public long closedConnections(ClosedBecause reason) {
        return closedConnections.get(reason).get();
    }

    void closed(ClosedBecause reason) {
        closedConnections.get(reason).incrementAndGet();
    }

    /** The connection with {@code from} (-1 if not yet named) failed with {@code cause}; it is being closed. */
    void onConnectionFailed(int from, Channel channel, Throwable cause) {
        for (Throwable c = cause; c != null; c = c.getCause()) {
            if (c instanceof javax.net.ssl.SSLException) {
                // A TLS record that does not authenticate (corrupted, truncated, replayed) or a failed handshake.
                onTlsFailed(from, channel, c);
                return;
            }
        }
        losses.onFailed(self, from, channel.remoteAddress(), cause);
        closed(ClosedBecause.CONNECTION_ERROR);
    }

    /** How many connections this node has dialed since it started (for tests and diagnostics). */
    public long dials() {
        return dials.get();
    }

    /** How many dials reached this transport's own socket ({@link SocketLayer#selfConnection}) and were closed. */
    public long selfConnections() {
        return selfConnections.get();
    }

    int selfId() {
        return self;
    }

    @Override
    public void close() {
        closed = true;
        if (server != null) {
            server.close();
        }
        outbound.values().forEach(link -> {
            synchronized (link) {
                if (link.channel != null) {
                    link.channel.close();
                }
            }
        });
        inbound.values().forEach(outbox -> outbox.channel().close());
        fromPeers.forEach(Channel::close);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        if (handshakes != null) {
            handshakes.shutdownNow();
        }
    }
}
