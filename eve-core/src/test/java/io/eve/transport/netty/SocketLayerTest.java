package io.eve.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.transport.SocketIo;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SocketLayerTest {
    @Test
    void shouldParseTheConfiguredValuesAndNameTheAllowedOnes() {
        assertThat(SocketIo.parse(" Epoll ")).isEqualTo(SocketIo.EPOLL);
        assertThat(SocketIo.parse("nio")).isEqualTo(SocketIo.NIO);
        assertThat(SocketIo.parse("AUTO")).isEqualTo(SocketIo.AUTO);
        assertThatThrownBy(() -> SocketIo.parse("uring"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'uring' is not one of auto, epoll, nio");
    }

    @Test
    void shouldRunNioWhenAskedForIt() {
        SocketLayer layer = SocketLayer.of(SocketIo.NIO);
        assertThat(layer.io()).isEqualTo(SocketIo.NIO);
        assertThat(layer.channel()).isEqualTo(NioSocketChannel.class);
    }

    @Test
    void shouldTakeEpollWhereItLoadsAndNioElsewhere() {
        SocketLayer layer = SocketLayer.of(SocketIo.AUTO);
        if (Epoll.isAvailable()) {
            assertThat(layer.io()).isEqualTo(SocketIo.EPOLL);
            assertThat(layer.channel()).isEqualTo(EpollSocketChannel.class);
            assertThat(SocketLayer.of(SocketIo.EPOLL).io()).isEqualTo(SocketIo.EPOLL);
        } else {
            assertThat(layer.io()).isEqualTo(SocketIo.NIO);
            assertThatThrownBy(() -> SocketLayer.of(SocketIo.EPOLL))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("transport.io = epoll")
                    .hasMessageContaining("use transport.io = auto or nio");
        }
    }

    @Test
    void shouldLoadTheNativeEpollTransportOnLinuxX8664() {
        // The shipped dependency carries the x86-64 Linux library: there, auto must not silently fall back to NIO.
        boolean linuxX8664 = System.getProperty("os.name").toLowerCase().contains("linux")
                && System.getProperty("os.arch").matches("amd64|x86_64");
        if (linuxX8664) {
            assertThat(Epoll.isAvailable())
                    .as("epoll unavailable: %s", Epoll.unavailabilityCause())
                    .isTrue();
        }
    }

    @Test
    void shouldSayWhichLayerATransportRunsOn() {
        try (NettyTransport transport = NettyTransport.builder()
                .self(0)
                .listen(new InetSocketAddress("127.0.0.1", 0))
                .io(SocketIo.NIO)
                .build()) {
            assertThat(transport.io()).isEqualTo(SocketIo.NIO);
        }
    }

    @Test
    void shouldTellADialThatReachedItselfFromOneThatReachedAListener() throws Exception {
        for (SocketIo io : new SocketIo[] {SocketIo.NIO, SocketIo.AUTO}) {
            SocketLayer layer = SocketLayer.of(io);
            MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, layer.handlers());
            try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                Bootstrap bootstrap = new Bootstrap()
                        .group(group)
                        .channel(layer.channel())
                        .handler(new ChannelInitializer<Channel>() {
                            @Override
                            protected void initChannel(Channel channel) {}
                        });
                int port;
                try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                    port = probe.getLocalPort();
                }
                InetSocketAddress nobody = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
                // Bound to the port it dials, nothing listening: TCP's simultaneous open connects it to itself.
                Channel self = bootstrap.connect(nobody, nobody).sync().channel();
                Channel real = bootstrap
                        .connect(listener.getLocalSocketAddress())
                        .sync()
                        .channel();

                assertThat(SocketLayer.selfConnection(self))
                        .as("%s", io)
                        .hasValueSatisfying(failure -> assertThat(failure.getMessage())
                                .contains("connected to itself")
                                .contains(":" + port)
                                .contains("nothing listens there"));
                assertThat(SocketLayer.selfConnection(real)).as("%s", io).isEmpty();
                self.close().sync();
                real.close().sync();
            } finally {
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            }
        }
    }
}
