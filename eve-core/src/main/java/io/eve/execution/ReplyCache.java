package io.eve.execution;

import io.eve.Reply;
import io.eve.Request;
import io.eve.merkle.graph.ObjectGraphState;
import io.eve.merkle.graph.ReplicatedMap;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Exactly-once with client sessions (DESIGN.md section 6, docs/protocol.md "Client sessions"): for each
 * client its acknowledged mark (the highest "lowest unanswered request number" its requests carried) and
 * the replies of its executed requests at or above the mark, kept inside the replicated state so that a
 * request retried after a failover gets its original reply instead of running twice, on every replica
 * alike. A request below the mark, or {@link Request#SESSION_WINDOW} or more above it, gets an error reply
 * and is never executed; so a client keeps at most that many replies.
 *
 * <p>Decisions depend only on the cache as last sealed and on the request itself, never on the order in
 * which the requests of one batch ran: a client's concurrent requests may share a parallel batch. The
 * stage writes the cache only at seal, in batch order ({@link #record}); executor threads only read it.
 * Thread-safe (replicated maps).
 */
final class ReplyCache {
    /** Each client's acknowledged mark. */
    static final String MARKS = "eve.sessions";
    /** Replies by "clientId:requestSeq", for requests at or above their client's mark. */
    static final String REPLIES = "eve.replies";

    private final ReplicatedMap<Long, Long> marks;
    private final ReplicatedMap<String, byte[]> replies;

    ReplyCache(ObjectGraphState state) {
        this.marks = root(state, MARKS);
        this.replies = root(state, REPLIES);
    }

    @SuppressWarnings("unchecked")
    private static <K, V> ReplicatedMap<K, V> root(ObjectGraphState state, String name) {
        ReplicatedMap<K, V> existing = state.root(name, (Class<ReplicatedMap<K, V>>) (Class<?>) ReplicatedMap.class);
        if (existing == null) {
            existing = new ReplicatedMap<>();
            state.setRoot(name, existing);
        }
        return existing;
    }

    /**
     * The reply for {@code request} if it must not run: its cached reply when it already ran, an error reply
     * when it lies below its client's mark (the client acknowledged it, its reply is forgotten) or beyond
     * the session window; {@code null} for a new request. {@code floor} raises the mark further: the highest
     * mark of the client's requests in a batch that is executed but not yet recorded (0 if none).
     */
    Reply lookup(Request request, long floor) {
        return lookupAbove(request, Math.max(mark(request.clientId()), floor));
    }

    /**
     * As {@link #lookup(Request, long)}, given {@code known}: the client's mark as read from this cache (at
     * any time while the request's batch runs), raised by the floor. A batch reads each client's mark once
     * instead of once per request.
     */
    Reply lookupAbove(Request request, long known) {
        long clientId = request.clientId();
        long seq = request.requestSeq();
        long mark = Math.max(known, request.lowestUnanswered());
        if (seq < mark) {
            return refusal(request, "was already answered: the client acknowledged every request below " + mark);
        }
        if (seq - mark >= Request.SESSION_WINDOW) {
            return refusal(
                    request,
                    "lies beyond the session window of " + Request.SESSION_WINDOW + " requests from " + mark
                            + ", the lowest this client may still wait for");
        }
        return cached(clientId, seq);
    }

    /** The reply cached for the request, or {@code null}: a retry answered by a replica that never ran it. */
    Reply cached(long clientId, long requestSeq) {
        byte[] cached = replies.get(key(clientId, requestSeq));
        if (cached == null) {
            return null;
        }
        ByteBuffer buffer = ByteBuffer.wrap(cached);
        boolean error = buffer.get() != 0;
        byte[] payload = new byte[buffer.remaining()];
        buffer.get(payload);
        return new Reply(clientId, requestSeq, error, payload);
    }

    /** The client's acknowledged mark: 1 for a client never seen (every request number is at least 1). */
    long mark(long clientId) {
        Long mark = marks.get(clientId);
        return mark == null ? 1 : mark;
    }

    /** How many replies the cache keeps for the client (for tests). */
    int size(long clientId) {
        long mark = mark(clientId);
        int size = 0;
        for (long seq = mark; seq < mark + Request.SESSION_WINDOW; seq++) {
            size += replies.containsKey(key(clientId, seq)) ? 1 : 0;
        }
        return size;
    }

    /**
     * Raises the client's mark to the request's {@code lowestUnanswered}, forgetting the replies below it. Every
     * request of a batch counts, executed or not, so the mark is a function of the batch, not of the
     * execution order.
     */
    void acknowledge(Request request) {
        acknowledge(request, mark(request.clientId()));
    }

    /** As {@link #acknowledge(Request)}, the client's mark being {@code old}; returns the mark after. */
    private long acknowledge(Request request, long old) {
        long mark = forget(request, old);
        if (mark != old) {
            marks.put(request.clientId(), mark);
        }
        return mark;
    }

    /**
     * The replies {@link #acknowledge} forgets, without writing the new mark (the caller writes it); returns
     * the mark after.
     */
    private long forget(Request request, long old) {
        long clientId = request.clientId();
        long mark = request.lowestUnanswered();
        if (mark <= old) {
            return old;
        }
        // Replies are kept only within the window above the old mark: at most that many to look at.
        for (long seq = old; seq < Math.min(mark, old + Request.SESSION_WINDOW); seq++) {
            replies.remove(key(clientId, seq));
        }
        return mark;
    }

    /** Keeps the reply of a request that ran, unless its client acknowledged it in the meantime. */
    void record(Reply reply) {
        record(reply, mark(reply.clientId()));
    }

    /** As {@link #record(Reply)}, the client's mark being {@code mark}. */
    private void record(Reply reply, long mark) {
        if (reply.requestSeq() < mark) {
            return;
        }
        ByteBuffer buffer = ByteBuffer.allocate(1 + reply.payload().length);
        buffer.put((byte) (reply.error() ? 1 : 0)).put(reply.payload());
        replies.put(key(reply.clientId(), reply.requestSeq()), buffer.array());
    }

    /**
     * A sealed batch's requests: {@link #acknowledge}s each of {@code requests}, in order, then {@link #record}s
     * {@code replies[i]} for each {@code i} whose request {@code executed}; the same as those calls one by one,
     * reading each client's mark from the cache once.
     */
    void recordBatch(List<Request> requests, Reply[] replies, boolean[] executed) {
        Map<Long, long[]> markOf = new HashMap<>(); // {mark before the batch, mark now}
        for (Request request : requests) {
            long[] known = markOf.get(request.clientId());
            if (known == null) {
                long mark = mark(request.clientId());
                known = new long[] {mark, mark};
                markOf.put(request.clientId(), known);
            }
            known[1] = forget(request, known[1]);
        }
        // Each client's mark is written once per batch, at its final value: the state is the same as after
        // one write per request that raised it (the trie is canonical), at a fraction of the writes.
        markOf.forEach((client, known) -> {
            if (known[1] != known[0]) {
                marks.put(client, known[1]);
            }
        });
        for (int i = 0; i < replies.length; i++) {
            if (executed[i]) {
                long[] known = markOf.get(replies[i].clientId());
                record(replies[i], known != null ? known[1] : mark(replies[i].clientId()));
            }
        }
    }

    private static String key(long clientId, long requestSeq) {
        return clientId + ":" + requestSeq;
    }

    private static Reply refusal(Request request, String why) {
        String text =
                "request " + request.requestSeq() + " of client " + request.clientId() + " not executed: it " + why;
        return new Reply(request.clientId(), request.requestSeq(), true, text.getBytes(StandardCharsets.UTF_8));
    }
}
