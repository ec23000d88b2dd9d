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

    /**
     * Sends asynchronously; a message to an unreachable node is dropped. A transport may hold a message to a
     * client briefly so that the replies the same task sends leave together, at the latest when the task that
     * sent it ends; {@link #flush()} sends them sooner.
     */
    void send(int to, Message message);

    /**
     * Sends at once whatever {@link #send} held back on the calling thread: for a caller that knows the
     * messages of a burst are all sent (the replies of one commit) and is about to do something else first
     * (execute the next batch). Order per pair of nodes is kept either way.
     */
    default void flush() {}

    @Override
    void close();

    /** Receives the messages of a node, one at a time. */
    @FunctionalInterface
    interface Receiver {
        void onMessage(int from, Message message);
    }
}
