package io.eve.rdma.control;

import io.eve.rdma.control.ControlChannel.Refusal;
import io.eve.transport.netty.tls.PeerIdentity;
import io.eve.transport.netty.tls.RefusalLog;
import io.eve.transport.netty.tls.TlsIdentity;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntPredicate;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Mutual TLS 1.3 on the connections of one {@link ControlChannel}, as {@code NettyTransport} runs it
 * (docs/operations.md, "Security"): Netty's {@link SslHandler} on the JDK's provider first in every pipeline,
 * the handshake's work on a thread of its own; a node dialed must present its own certificate, and an
 * accepted connection a node's certificate whose node every hello on it names. Otherwise the connection is
 * closed, counted ({@link Refusal}) and logged at WARN at most once per id every {@value #LOG_SECONDS} s;
 * nothing it sent reaches the listener.
 *
 * <p>Thread-safe; called on the channel's event loop.
 */
final class ControlTls implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ControlChannel.class);
    private static final long LOG_SECONDS = 10;
    /** A failed handshake is reported twice (its future and the exception behind it): it counts once. */
    private static final AttributeKey<Boolean> COUNTED = AttributeKey.valueOf("eve.rdma.control.tls-refused");

    private final int self;
    private final TlsIdentity identity;
    private final IntPredicate isPeer;
    private final ExecutorService handshakes;
    private final RefusalLog log = new RefusalLog(LOG, LOG_SECONDS);
    private final Map<Refusal, LongAdder> refused = new EnumMap<>(Refusal.class);
    private final Map<Integer, LongAdder> impostorsClaiming = new ConcurrentHashMap<>();
    private final Map<Integer, LongAdder> failedDials = new ConcurrentHashMap<>();

    /** With {@code isPeer} the ids of the cluster's nodes: only they are counted and logged one by one. */
    ControlTls(int self, TlsIdentity identity, IntPredicate isPeer) {
        this.self = self;
        this.identity = identity;
        this.isPeer = isPeer;
        for (Refusal reason : Refusal.values()) {
            refused.put(reason, new LongAdder());
        }
        // Built now, so that the JDK's refusal of the identity stops the build rather than a connection.
        identity.serverContext();
        identity.clientContext();
        this.handshakes = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "eve-rdma-tls-handshake-" + self);
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Puts TLS first on an accepted connection; one whose handshake fails is refused. */
    void onAccepted(Channel channel) {
        SslHandler handler = identity.newServerHandler(channel.alloc(), handshakes);
        handler.handshakeFuture().addListener(done -> {
            if (!done.isSuccess()) {
                onFailed(channel, -1, done.cause());
            }
        });
        channel.pipeline().addLast(handler);
    }

    /** Puts TLS first on a connection to {@code peer}; it accepts only {@code peer}'s certificate. */
    void onDialing(Channel channel, int peer, InetSocketAddress address) {
        channel.pipeline().addLast(identity.newClientHandler(channel.alloc(), peer, address.getPort(), handshakes));
    }

    /** The last handler of a dialed connection: a TLS failure on it is refused, anything else closes it. */
    ChannelHandler newFailureHandler(int peer) {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
                if (isTlsFailure(cause)) {
                    onFailed(context.channel(), peer, cause);
                } else {
                    LOG.debug("node {}: the control connection to node {} failed: {}", self, peer, cause.toString());
                }
                context.close();
            }
        };
    }

    /** Completes once {@code channel}'s TLS handshake is done, or failed. */
    static Future<Channel> handshake(Channel channel) {
        return channel.pipeline().get(SslHandler.class).handshakeFuture();
    }

    /**
     * Whether the peer of the accepted {@code channel} may say {@code hello}: its certificate is a node's and
     * names the node the hello names. If not, the connection is refused: closed, counted and logged.
     */
    boolean tryAuthenticate(Channel channel, ControlFrame.Hello hello) {
        Optional<PeerIdentity> peer = PeerIdentity.ofPeer(
                channel.pipeline().get(SslHandler.class).engine().getSession());
        if (peer.isPresent() && peer.get().isNode() && peer.get().node() == hello.node()) {
            return true;
        }
        int claimed = hello.node();
        refused.get(Refusal.IMPOSTOR).increment();
        if (isPeer.test(claimed)) {
            impostorsClaiming.computeIfAbsent(claimed, id -> new LongAdder()).increment();
        }
        log.warn(
                isPeer.test(claimed) ? claimed : -1,
                "node {}: control connection from {} authenticated as {} said it is node {}; closing",
                self,
                channel.remoteAddress(),
                peer.map(PeerIdentity::toString).orElse("nobody"),
                claimed);
        channel.close();
        return false;
    }

    /** TLS with {@code peer} (-1: an accepted connection) failed: the connection is closed, counted once. */
    void onFailed(Channel channel, int peer, Throwable cause) {
        channel.close();
        if (channel.attr(COUNTED).setIfAbsent(Boolean.TRUE) != null) {
            return;
        }
        refused.get(Refusal.TLS_FAILED).increment();
        if (peer >= 0) {
            failedDials.computeIfAbsent(peer, id -> new LongAdder()).increment();
        }
        log.warn(
                peer,
                "node {}: TLS with {} ({}) failed, closing: {}",
                self,
                peer < 0 ? "an accepted control connection" : "node " + peer + "'s control channel",
                channel.remoteAddress(),
                cause == null ? "closed" : cause.getMessage());
    }

    /** Whether {@code cause} is the TLS layer's: a failed handshake, or a record that does not authenticate. */
    static boolean isTlsFailure(Throwable cause) {
        for (Throwable c = cause; c != null; c = c.getCause()) {
            if (c instanceof SSLException) {
                return true;
            }
        }
        return false;
    }

    long refused(Refusal reason) {
        return refused.get(reason).sum();
    }

    long refusedImpostors(int peer) {
        LongAdder count = impostorsClaiming.get(peer);
        return count == null ? 0 : count.sum();
    }

    long failedTlsDials(int peer) {
        LongAdder count = failedDials.get(peer);
        return count == null ? 0 : count.sum();
    }

    @Override
    public void close() {
        handshakes.shutdownNow();
    }
}
