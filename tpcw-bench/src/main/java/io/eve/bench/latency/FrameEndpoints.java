package io.eve.bench.latency;

import io.eve.transport.SocketIo;
import io.eve.transport.netty.SocketLayer;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The two ends of the baselines' connections, set up alike for the ping client, the relay and the echo
 * server: over 127.0.0.1 on the socket layer Eve's transport takes by default ({@code transport.io = auto},
 * decision 0045: Netty's native epoll where it loads, else NIO, so that the floor is measured on the same
 * layer as the replicas), {@code TCP_NODELAY}, {@link LengthPrefixedFrames} in front of one handler
 * of the caller's per connection (a new one each time: the handlers are not sharable).
 */
final class FrameEndpoints {
    private static final long RETRY_MILLIS = 100;

    /** The layer {@code transport.io = auto} resolves to here, as for the replicas. */
    private static final SocketLayer LAYER = SocketLayer.of(SocketIo.AUTO);

    private FrameEndpoints() {}

    /** One event loop on that layer. */
    static EventLoopGroup group() {
        return new MultiThreadIoEventLoopGroup(1, LAYER.handlers());
    }

    /** Accepts connections on 127.0.0.1:{@code port}; returns the listening channel. */
    static Channel listen(EventLoopGroup group, int port, Supplier<ChannelHandler> handler)
            throws InterruptedException {
        return new ServerBootstrap()
                .group(group)
                .channel(LAYER.serverChannel())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(framed(handler))
                .bind(new InetSocketAddress("127.0.0.1", port))
                .sync()
                .channel();
    }

    /**
     * Connects to {@code server}, trying again every 100 ms while it is still starting, for at most
     * {@code limit}.
     *
     * @throws IllegalStateException naming the server and the limit if it did not accept in time
     */
    static Channel connect(
            EventLoopGroup group, InetSocketAddress server, Duration limit, Supplier<ChannelHandler> handler)
            throws InterruptedException {
        Bootstrap bootstrap = new Bootstrap()
                .group(group)
                .channel(LAYER.channel())
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(framed(handler));
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            ChannelFuture connecting = bootstrap.connect(server).await();
            if (connecting.isSuccess()) {
                return connecting.channel();
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(
                        "the server on " + server + " did not accept within " + limit, connecting.cause());
            }
            Thread.sleep(RETRY_MILLIS);
        }
    }

    private static ChannelInitializer<SocketChannel> framed(Supplier<ChannelHandler> handler) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(SocketChannel channel) {
                channel.pipeline().addLast(new LengthPrefixedFrames(), handler.get());
            }
        };
    }
}
