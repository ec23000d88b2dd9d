package io.eve.rdma.control;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An accepted control connection: a hello names the peer (with TLS, only the node of its certificate), then
 * frames flow to the listener. A malformed frame, or anything before the hello, closes it with a logged
 * reason. On the connection's event loop.
 */
final class Inbound extends SimpleChannelInboundHandler<ByteBuf> {
    private static final Logger LOG = LoggerFactory.getLogger(ControlChannel.class);

    private final int self;
    private final ControlChannel.Listener listener;
    /** Mutual TLS, or {@code null} for plain TCP. */
    private final ControlTls tls;

    private int from = -1;
    /** Refused as an impostor: what it still sends is dropped while the connection closes. */
    private boolean refused;

    private final long helloTimeoutMillis;

    Inbound(int self, ControlChannel.Listener listener, ControlTls tls, long helloTimeoutMillis) {
        this.self = self;
        this.listener = listener;
        this.tls = tls;
        this.helloTimeoutMillis = helloTimeoutMillis;
    }

    /** A connection that has not said hello {@code helloTimeoutMillis} after its accept is closed. */
    @Override
    public void channelActive(ChannelHandlerContext context) throws Exception {
        context.executor()
                .schedule(
                        () -> {
                            if (from < 0 && context.channel().isOpen()) {
                                LOG.warn(
                                        "node {}: closing the control connection from {}: no hello within {} ms",
                                        self,
                                        context.channel().remoteAddress(),
                                        helloTimeoutMillis);
                                context.close();
                            }
                        },
                        helloTimeoutMillis,
                        TimeUnit.MILLISECONDS);
        super.channelActive(context);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext context, ByteBuf frame) {
        if (refused) {
            return;
        }
        ControlFrame decoded = ControlCodec.decode(frame.nioBuffer());
        if (from < 0) {
            if (!(decoded instanceof ControlFrame.Hello hello) || hello.node() < 0) {
                throw new IllegalArgumentException("the first frame must be a hello, got " + decoded);
            }
            if (!authenticated(context, hello)) {
                return;
            }
            from = hello.node();
            LOG.debug(
                    "node {}: control connection from node {} ({}), incarnation {}, first seq {}",
                    self,
                    from,
                    context.channel().remoteAddress(),
                    hello.incarnation(),
                    hello.firstSeq());
        } else if (decoded instanceof ControlFrame.Hello hello && !authenticated(context, hello)) {
            return;
        }
        listener.onFrame(from, decoded);
    }

    /** Without TLS any hello passes; with it only one naming the node of the peer's certificate. */
    private boolean authenticated(ChannelHandlerContext context, ControlFrame.Hello hello) {
        if (tls == null || tls.tryAuthenticate(context.channel(), hello)) {
            return true;
        }
        refused = true;
        return false;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
        if (tls != null && ControlTls.isTlsFailure(cause)) {
            tls.onFailed(context.channel(), -1, cause);
            return;
        }
        LOG.warn(
                "node {}: closing the control connection from {}: {}",
                self,
                context.channel().remoteAddress(),
                cause.toString());
        context.close();
    }
}
