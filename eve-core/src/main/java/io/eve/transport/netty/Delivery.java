package io.eve.transport.netty;

import io.eve.protocol.Message;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;

/** Hands decoded messages to the transport's receiver, tagged with the node at the other end. */
final class Delivery extends SimpleChannelInboundHandler<Message> {
    private final NettyTransport transport;
    private volatile int from;

    /** For an accepted connection: the peer is known after the handshake. */
    Delivery(NettyTransport transport) {
        this(transport, -1);
    }

    Delivery(NettyTransport transport, int from) {
        this.transport = transport;
        this.from = from;
    }

    void from(int node) {
        this.from = node;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext context, Message message) {
        transport.deliver(from, message);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
        transport.onConnectionFailed(from, context.channel().remoteAddress(), cause);
        context.close();
    }
}
