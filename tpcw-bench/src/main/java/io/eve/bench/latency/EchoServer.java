package io.eve.bench.latency;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;

/**
 * The far end of the raw ping-pong, run as its own process like a replica: accepts connections on
 * 127.0.0.1 and sends every length-prefixed frame straight back from the event loop, one I/O thread in
 * all. Runs until killed.
 *
 * <p>Usage: {@code EchoServer port}.
 */
public final class EchoServer {
    private EchoServer() {}

    public static void main(String[] args) throws InterruptedException {
        int port = Integer.parseInt(args[0]);
        EventLoopGroup group = FrameEndpoints.group();
        try {
            FrameEndpoints.listen(group, port, Echo::new).closeFuture().sync();
        } finally {
            group.shutdownGracefully();
        }
    }

    /** Writes each frame back as it came. */
    private static final class Echo extends SimpleChannelInboundHandler<byte[]> {
        @Override
        protected void channelRead0(ChannelHandlerContext context, byte[] frame) {
            context.writeAndFlush(Unpooled.wrappedBuffer(frame));
        }
    }
}
