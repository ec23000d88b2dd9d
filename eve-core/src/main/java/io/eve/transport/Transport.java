package io.eve.transport;

import io.eve.protocol.Message;

/**
 * Sends messages to nodes by id and delivers incoming ones to one receiver (DESIGN.md section 10).
 * Messages between one pair of nodes arrive in the order sent, or not at all. Thread-safe.
 */
public interface Transport extends AutoCloseable {

    /** This node's id. */
    int self();

    /** Starts delivering incoming messages to {@code receiver}, on the transport's own thread. */
    void start(Receiver receiver);

    /** Sends asynchronously; a message to an unreachable node is dropped. */
    void send(int to, Message message);

    @Override
    void close();

    /** Receives the messages of a node, one at a time. */
    @FunctionalInterface
    interface Receiver {
        void onMessage(int from, Message message);
    }
}
