package io.eve.transport.netty;

import io.eve.transport.SocketIo;

/** The transport behaviour suite with every node on the JDK's NIO selector (what {@code transport.io = nio} runs). */
class NettyTransportNioBehaviourTest extends NettyTransportBehaviourTest {
    @Override
    protected SocketIo io(int id) {
        return SocketIo.NIO;
    }
}
