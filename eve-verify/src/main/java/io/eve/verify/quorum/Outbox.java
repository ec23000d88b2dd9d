package io.eve.verify.quorum;

import io.eve.protocol.Message;

/** Where a quorum state machine's messages go: the runtime binds it to a transport, the simulator to its network. */
@FunctionalInterface
public interface Outbox {
    void send(int to, Message message);
}
