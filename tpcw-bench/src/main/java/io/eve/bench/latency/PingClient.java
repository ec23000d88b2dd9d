package io.eve.bench.latency;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The near end of the raw ping-pong. It mirrors how an {@code EveClient} waits for a reply: the calling
 * thread hands the frame to the event loop and blocks on a future that the event loop completes, so both
 * measurements include the same two thread hand-offs on the client side.
 *
 * <p>One ping at a time, from one calling thread.
 */
final class PingClient implements AutoCloseable {
    private final EventLoopGroup group = FrameEndpoints.group();
    private volatile CompletableFuture<byte[]> pending;
    private Channel channel;

    /** Connects to the echo server, retrying until it listens or {@code limit} has passed. */
    void connect(InetSocketAddress server, Duration limit) throws InterruptedException {
        channel = FrameEndpoints.connect(group, server, limit, Pong::new);
    }

    /** Sends {@code frame} and waits for it to come back; returns the round trip in nanoseconds. */
    long ping(byte[] frame) throws InterruptedException {
        CompletableFuture<byte[]> reply = new CompletableFuture<>();
        pending = reply;
        long start = System.nanoTime();
        channel.writeAndFlush(Unpooled.wrappedBuffer(frame));
        try {
            reply.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("no pong within 10 s", e);
        }
        return System.nanoTime() - start;
    }

    @Override
    public void close() {
        if (channel != null) {
            channel.close();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** Completes the ping in flight. */
    private final class Pong extends SimpleChannelInboundHandler<byte[]> {
        @Override
        protected void channelRead0(ChannelHandlerContext context, byte[] frame) {
            pending.complete(frame);
        }
    }
}
