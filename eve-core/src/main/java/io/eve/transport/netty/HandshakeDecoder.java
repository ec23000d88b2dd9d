package io.eve.transport.netty;

import io.eve.transport.netty.tls.PeerIdentity;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslHandler;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first 8 bytes of an accepted connection: magic "EVEH" and the dialing node's id. Until they
 * arrive nothing else is read; a connection that does not send them within the timeout, or sends
 * something else, is closed with a logged reason. With TLS the id must be one the peer's certificate
 * grants ({@link PeerIdentity#allows}), else the connection is closed as an impostor. Then this handler
 * leaves the pipeline.
 */
final class HandshakeDecoder extends ByteToMessageDecoder {
    private static final Logger LOG = LoggerFactory.getLogger(HandshakeDecoder.class);
    static final int MAGIC = 0x45564548;
    static final int LENGTH = 8;

    private final NettyTransport transport;
    private final long timeoutMillis;
    private ScheduledFuture<?> deadline;
    /** The connection was refused and is closing: what still arrives is dropped unread. */
    private boolean refused;

    HandshakeDecoder(NettyTransport transport, long timeoutMillis) {
        this.transport = transport;
        this.timeoutMillis = timeoutMillis;
    }

    static byte[] hello(int node) {
        return ByteBuffer.allocate(LENGTH).putInt(MAGIC).putInt(node).array();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext context) {
        SslHandler tls = context.pipeline().get(SslHandler.class);
        if (tls == null) {
            armDeadline(context);
        } else {
            // The TLS handshake has a deadline of its own; the clock for naming itself starts after it.
            tls.handshakeFuture().addListener(done -> {
                if (done.isSuccess() && !refused) {
                    armDeadline(context);
                }
            });
        }
    }

    private void armDeadline(ChannelHandlerContext context) {
        deadline = context.executor()
                .schedule(
                        () -> {
                            LOG.warn(
                                    "node {}: {} did not name itself within {} ms; closing",
                                    transport.selfId(),
                                    context.channel().remoteAddress(),
                                    timeoutMillis);
                            transport.closed(NettyTransport.ClosedBecause.HANDSHAKE_TIMEOUT);
                            context.close();
                        },
                        timeoutMillis,
                        TimeUnit.MILLISECONDS);
    }

    @Override
    protected void decode(ChannelHandlerContext context, ByteBuf in, List<Object> out) {
        if (refused) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < LENGTH) {
            return;
        }
        int magic = in.readInt();
        int node = in.readInt();
        if (deadline != null) {
            deadline.cancel(false);
        }
        if (magic != MAGIC || node < 0) {
            LOG.warn(
                    "node {}: {} sent a bad handshake (magic {}, node {}); closing",
                    transport.selfId(),
                    context.channel().remoteAddress(),
                    Integer.toHexString(magic),
                    node);
            in.skipBytes(in.readableBytes());
            transport.closed(NettyTransport.ClosedBecause.BAD_HANDSHAKE);
            context.close();
            return;
        }
        if (transport.tls()) {
            PeerIdentity identity = peerIdentity(context);
            // A node only as itself; a client only as one of its ids, and never as a node it dials.
            if (identity == null || !identity.allows(node) || (!identity.isNode() && transport.isDialable(node))) {
                in.skipBytes(in.readableBytes());
                refused = true;
                transport.refuseImpostor(node, identity, context.channel());
                return;
            }
            context.pipeline().get(Delivery.class).authenticated(identity);
        }
        transport.onHandshake(node, context.channel());
        context.pipeline().get(Delivery.class).from(node);
        context.pipeline().remove(this);
    }

    /** The identity of the peer's certificate (the TLS handshake is done before any data is read). */
    private static PeerIdentity peerIdentity(ChannelHandlerContext context) {
        SslHandler tls = context.pipeline().get(SslHandler.class);
        return PeerIdentity.ofPeer(tls.engine().getSession()).orElse(null);
    }

    @Override
    public void handlerRemoved0(ChannelHandlerContext context) {
        if (deadline != null) {
            deadline.cancel(false);
        }
    }
}
