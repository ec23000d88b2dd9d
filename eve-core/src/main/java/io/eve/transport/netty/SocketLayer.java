package io.eve.transport.netty;

import io.eve.transport.SocketIo;
import io.netty.channel.Channel;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.ConnectException;
import java.net.SocketAddress;
import java.util.Optional;

/**
 * The event-loop factory and channel classes of one socket layer ({@link SocketIo}), resolved once per
 * transport. Netty's native epoll transport makes the same system calls as the JDK's NIO selector with less work
 * around each (decision 0045); where its library cannot load, {@link SocketIo#AUTO} falls back to NIO. Public
 * so that other Netty endpoints of this project (the latency benchmark's floor) run on the layer the replicas
 * choose.
 */
public record SocketLayer(
        SocketIo io,
        IoHandlerFactory handlers,
        Class<? extends ServerChannel> serverChannel,
        Class<? extends SocketChannel> channel) {

    /**
     * The layer {@code requested} names; {@link SocketIo#AUTO} resolves to epoll or NIO.
     *
     * @throws IllegalStateException if {@link SocketIo#EPOLL} is requested and the native library cannot load,
     *     with the cause Netty gives
     */
    public static SocketLayer of(SocketIo requested) {
        return switch (requested) {
            case NIO -> nio();
            case EPOLL -> {
                if (!Epoll.isAvailable()) {
                    throw new IllegalStateException(
                            "transport.io = epoll, but Netty's native epoll transport cannot load here ("
                                    + Epoll.unavailabilityCause()
                                    + "); use transport.io = auto or nio",
                            Epoll.unavailabilityCause());
                }
                yield epoll();
            }
            case AUTO -> Epoll.isAvailable() ? epoll() : nio();
        };
    }

    /**
     * What failed when a dialed {@code channel} reached itself (empty when it reached a peer): on one host, a dial to a port nobody listens on may draw
     * that very port as its source port, and TCP's simultaneous open then connects the socket to itself (about
     * once in 35,000 refused dials here). Such a connection talks to no peer, holds the port the peer is about to
     * listen on, and echoes what is sent, so a dialer closes it as a failed dial (and not as a bad frame or a TLS
     * failure, which is what its echo would otherwise look like).
     */
    public static Optional<ConnectException> selfConnection(Channel channel) {
        SocketAddress local = channel.localAddress();
        if (local == null || !local.equals(channel.remoteAddress())) {
            return Optional.empty();
        }
        return Optional.of(new ConnectException("connected to itself (" + local + "): nothing listens there"));
    }

    private static SocketLayer epoll() {
        return new SocketLayer(
                SocketIo.EPOLL, EpollIoHandler.newFactory(), EpollServerSocketChannel.class, EpollSocketChannel.class);
    }

    private static SocketLayer nio() {
        return new SocketLayer(
                SocketIo.NIO, NioIoHandler.newFactory(), NioServerSocketChannel.class, NioSocketChannel.class);
    }
}
