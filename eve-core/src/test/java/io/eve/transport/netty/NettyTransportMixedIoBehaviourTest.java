package io.eve.transport.netty;

import io.eve.transport.SocketIo;

/**
 * The transport behaviour suite with even nodes on NIO and odd ones on the default layer (native epoll where it
 * loads): the socket layer is a node's own choice, the bytes on the wire are the same.
 */
class NettyTransportMixedIoBehaviourTest extends NettyTransportBehaviourTest {
    @Override
    protected SocketIo io(int id) {
        return id % 2 == 0 ? SocketIo.NIO : SocketIo.AUTO;
    }
}
