package io.eve.transport.netty;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Frames for nodes that this one cannot dial and that have no connection to it yet, held briefly in
 * order and handed over once the node names itself. A replica can answer a client before that client's
 * connection to it is set up: in the quorum profiles the client's first request goes to every replica at
 * once and the primary's batch may reach a replica before the client's own connection does.
 *
 * <p>Bounded, since the node ids come from requests that a faulty primary could invent: at most
 * {@link #MAX_NODES} nodes, {@link #MAX_PER_NODE} frames each (the oldest give way), {@link #MAX_BYTES} in
 * all (a frame that does not fit is dropped), and each node's frames are dropped once the first of them
 * waited {@link #TTL_NANOS}, as a network would have lost them. Called under the transport's lock for
 * connections.
 */
final class HeldMessages {
    static final int MAX_NODES = 4_096;
    static final int MAX_PER_NODE = 64;
    static final long MAX_BYTES = 16L << 20;
    static final long TTL_NANOS = 2_000_000_000L;

    /** By node, in the order each node's first frame arrived (so expiry looks at the head only). */
    private final Map<Integer, Held> held = new LinkedHashMap<>();

    private long bytes;

    private static final class Held {
        final long since;
        final ArrayDeque<byte[]> frames = new ArrayDeque<>();

        Held(long since) {
            this.since = since;
        }
    }

    /** Holds {@code frame} for {@code node}; returns false if it was dropped for lack of room. */
    boolean hold(int node, byte[] frame, long nowNanos) {
        expire(nowNanos);
        Held waiting = held.get(node);
        if (waiting == null && held.size() >= MAX_NODES) {
            return false;
        }
        if (waiting != null && waiting.frames.size() >= MAX_PER_NODE) {
            bytes -= waiting.frames.poll().length;
        }
        if (bytes + frame.length > MAX_BYTES) {
            return false;
        }
        if (waiting == null) {
            waiting = new Held(nowNanos);
            held.put(node, waiting);
        }
        waiting.frames.add(frame);
        bytes += frame.length;
        return true;
    }

    /** Takes what waits for {@code node}, oldest first (empty if nothing does or it expired). */
    List<byte[]> release(int node, long nowNanos) {
        expire(nowNanos);
        Held waiting = held.remove(node);
        if (waiting == null) {
            return List.of();
        }
        forget(waiting);
        return List.copyOf(waiting.frames);
    }

    int nodes() {
        return held.size();
    }

    long bytes() {
        return bytes;
    }

    private void expire(long nowNanos) {
        Iterator<Held> oldest = held.values().iterator();
        while (oldest.hasNext()) {
            Held next = oldest.next();
            if (nowNanos - next.since < TTL_NANOS) {
                return;
            }
            forget(next);
            oldest.remove();
        }
    }

    private void forget(Held gone) {
        for (byte[] frame : gone.frames) {
            bytes -= frame.length;
        }
    }
}
