package io.eve.transport.netty;

import io.eve.transport.SocketIo;
import io.eve.transport.Transport;
import io.eve.transport.TransportBehaviourSuite;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The transport behaviour suite over TCP on 127.0.0.1, every node listening on an ephemeral port, on the default
 * socket layer ({@link SocketIo#AUTO}: native epoll where it loads). Subclasses run it on NIO, and on a mix of
 * both (nodes of one cluster need not agree on their socket layer).
 */
class NettyTransportBehaviourTest extends TransportBehaviourSuite {
    private final Map<Integer, InetSocketAddress> addresses = new ConcurrentHashMap<>();

    /** The socket layer node {@code id} runs on. */
    protected SocketIo io(int id) {
        return SocketIo.AUTO;
    }

    @Override
    protected Transport node(int id) {
        NettyTransport transport = NettyTransport.builder()
                .self(id)
                .listen(new InetSocketAddress("127.0.0.1", 0))
                .peers(addresses::get)
                .io(io(id))
                .build();
        return new Transport() {
            @Override
            public int self() {
                return id;
            }

            @Override
            public void start(Receiver receiver) {
                transport.start(receiver);
                addresses.put(id, transport.boundAddress());
            }

            @Override
            public void send(int to, io.eve.protocol.Message message) {
                transport.send(to, message);
            }

            @Override
            public void close() {
                addresses.remove(id);
                transport.close();
            }
        };
    }
}
