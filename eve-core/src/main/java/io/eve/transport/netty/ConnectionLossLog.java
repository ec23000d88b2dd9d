package io.eve.transport.netty;

import java.io.IOException;
import java.net.SocketAddress;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports connections that failed: the first loss of a peer at WARN, further losses of the same peer at
 * DEBUG until a connection with it is set up again. A replica killed with SIGKILL resets every connection
 * to it at once; the transports of one process that talk to the same nodes (a load of many clients) share
 * one log through {@link NettyTransport.Builder#connectionLossLog}, so the process says it once.
 *
 * <p>Only I/O failures count as a loss of the peer. Any other exception on a connection (a receiver that
 * threw, a bug) is logged at WARN every time.
 *
 * <p>Thread-safe: called from the event loops of every transport that shares it.
 */
public final class ConnectionLossLog {
    private final Logger log;
    /** Peers whose loss was reported at WARN and that no connection reached since. */
    private final Set<Integer> lost = ConcurrentHashMap.newKeySet();

    public ConnectionLossLog() {
        this(LoggerFactory.getLogger(NettyTransport.class));
    }

    /** Reports to {@code log} (tests count what it receives). */
    ConnectionLossLog(Logger log) {
        this.log = Objects.requireNonNull(log, "log");
    }

    /**
     * The connection of node {@code self} with {@code peer} (-1 before it named itself) at {@code remote}
     * failed with {@code cause} and is being closed.
     */
    void onFailed(int self, int peer, SocketAddress remote, Throwable cause) {
        if (!(cause instanceof IOException)) {
            log.warn("node {}: closing the connection with {}: {}", self, remote, cause.toString());
        } else if (peer < 0) {
            log.warn("node {}: lost the connection with {}: {}", self, remote, cause.toString());
        } else if (lost.add(peer)) {
            log.warn(
                    "node {}: lost the connection with node {} ({}): {}; further losses of node {} log at DEBUG"
                            + " until it is reached again",
                    self,
                    peer,
                    remote,
                    cause.toString(),
                    peer);
        } else {
            log.debug("node {}: lost the connection with node {} ({}) again: {}", self, peer, remote, cause.toString());
        }
    }

    /** A connection with {@code peer} is up: its next loss is news again. */
    void onConnected(int peer) {
        lost.remove(peer);
    }
}
