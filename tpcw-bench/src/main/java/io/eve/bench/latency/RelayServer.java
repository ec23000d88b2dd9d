package io.eve.bench.latency;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * The middle of the relayed ping-pong, run as its own process like a primary: every length-prefixed frame
 * from a client goes on to an {@link EchoServer} in a third process, and what comes back goes to the
 * client, all from one event loop. A ping through it takes the path of an ordered request in
 * primary-backup (client to primary, primary to backup, back to the primary, back to the client): four
 * one-way trips through three processes, with nothing executed, sealed or checked on the way. It is the
 * floor of that path on the machine at hand.
 *
 * <p>Serves one client at a time (the latest connection gets the answers). Runs until killed; exits if the
 * echo server does not accept within 30 s.
 *
 * <p>Usage: {@code RelayServer port echo-port}.
 */
public final class RelayServer {
    private final EventLoopGroup group = FrameEndpoints.group();
    private final InetSocketAddress echo;
    /** The connection to the echo server, made before any client is accepted. */
    private volatile Channel downstream;
    /** The latest client's connection, set and read on the one event loop. */
    private Channel client;

    private RelayServer(InetSocketAddress echo) {
        this.echo = echo;
    }

    public static void main(String[] args) throws InterruptedException {
        int port = Integer.parseInt(args[0]);
        int echoPort = Integer.parseInt(args[1]);
        new RelayServer(new InetSocketAddress("127.0.0.1", echoPort)).serve(port);
    }

    /** Connects to the echo server (retrying while it starts), then accepts clients. */
    private void serve(int port) throws InterruptedException {
        try {
            downstream = FrameEndpoints.connect(group, echo, Duration.ofSeconds(30), FromEcho::new);
            FrameEndpoints.listen(group, port, FromClient::new).closeFuture().sync();
        } finally {
            group.shutdownGracefully();
        }
    }

    private final class FromClient extends SimpleChannelInboundHandler<byte[]> {
        @Override
        public void channelActive(ChannelHandlerContext context) {
            client = context.channel();
        }

        @Override
        protected void channelRead0(ChannelHandlerContext context, byte[] frame) {
            downstream.writeAndFlush(Unpooled.wrappedBuffer(frame));
        }
    }

    private final class FromEcho extends SimpleChannelInboundHandler<byte[]> {
        @Override
        protected void channelRead0(ChannelHandlerContext context, byte[] frame) {
            Channel current = client;
            if (current != null) {
                current.writeAndFlush(Unpooled.wrappedBuffer(frame));
            }
        }
    }
}
