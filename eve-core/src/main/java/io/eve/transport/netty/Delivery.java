package io.eve.transport.netty;

import io.eve.protocol.Message;
import io.eve.transport.netty.tls.PeerIdentity;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;

/** Hands decoded messages to the transport's receiver, tagged with the node at the other end. */
final class Delivery extends SimpleChannelInboundHandler<Message> {
    private final NettyTransport transport;
    private volatile int from;
    /** With TLS, on an accepted connection: the certificate's identity, once the handshake checked it. */
    private volatile PeerIdentity identity;
    /** Refused as an impostor: the rest of what it sent is dropped. */
    private boolean refused;

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

    void authenticated(PeerIdentity peer) {
        this.identity = peer;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext context, Message message) {
        if (refused) {
            return;
        }
        PeerIdentity peer = identity;
        if (peer != null && !peer.isNode()) {
            long clientId = from;
            if (message instanceof Message.ClientRequest request) {
                clientId = request.request().clientId();
            } else if (message instanceof Message.ReadRequest request) {
                clientId = request.request().clientId();
            }
            if (clientId != from) {
                refused = true;
                // A client sends only its own requests: replies go to the connection its certificate proved.
                transport.refuseImpostor(
                        (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, clientId)),
                        peer,
                        context.channel());
                return;
            }
        }
        transport.deliver(from, message);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext context) {
        // The replies the messages of this read released leave now, together (NettyTransport.flush).
        transport.flush();
        context.fireChannelReadComplete();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
        transport.onConnectionFailed(from, context.channel(), cause);
        context.close();
    }
}
