package io.eve.transport.netty;

import io.eve.protocol.Message;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Messages for nodes that this one cannot dial and that have no connection to it yet, held briefly in
 * order and handed over once the node names itself. A replica can answer a client before that client's
 * connection to it is set up: in the quorum profiles the client's first request goes to every replica at
 * once and the primary's batch may reach a replica before the client's own connection does.
 *
 * <p>Bounded: at most {@link #MAX_NODES} nodes, {@link #MAX_PER_NODE} messages each (the oldest give way),
 * and each node's messages are dropped once the first of them waited {@link #TTL_NANOS}, as a network
 * would have lost them. Called under the transport's lock for connections.
 */
final class HeldMessages {
    static final int MAX_NODES = 4_096;
    static final int MAX_PER_NODE = 256;
    static final long TTL_NANOS = 2_000_000_000L;

    /** By node, in the order each node's first message arrived (so expiry looks at the head only). */
    private final Map<Integer, Held> held = new LinkedHashMap<>();

    private static final class Held {
        final long since;
        final ArrayDeque<Message> messages = new ArrayDeque<>();

        Held(long since) {
            this.since = since;
        }
    }

    /** Holds {@code message} for {@code node}; returns false if it was dropped (too many nodes waiting). */
    boolean hold(int node, Message message, long nowNanos) {
        expire(nowNanos);
        Held waiting = held.get(node);
        if (waiting == null) {
            if (held.size() >= MAX_NODES) {
                return false;
            }
            waiting = new Held(nowNanos);
            held.put(node, waiting);
        }
        if (waiting.messages.size() >= MAX_PER_NODE) {
            waiting.messages.poll();
        }
        waiting.messages.add(message);
        return true;
    }

    /** Takes what waits for {@code node}, oldest first (empty if nothing does or it expired). */
    List<Message> release(int node, long nowNanos) {
        expire(nowNanos);
        Held waiting = held.remove(node);
        return waiting == null ? List.of() : List.copyOf(waiting.messages);
    }

    int nodes() {
        return held.size();
    }

    private void expire(long nowNanos) {
        Iterator<Held> oldest = held.values().iterator();
        while (oldest.hasNext()) {
            if (nowNanos - oldest.next().since < TTL_NANOS) {
                return;
            }
            oldest.remove();
        }
    }
}
