package io.eve.verify.quorum;

import io.eve.Reply;
import io.eve.Request;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * An execution replica's memory of committed requests, to answer a client's retry at once (Eve §6.1)
 * without a trip through the execution stage, and to keep a copy of a request the client has already been
 * answered from being ordered again: per client, its acknowledged mark (the highest "lowest unanswered
 * request number" among its committed requests, as the replicated reply cache keeps it; docs/protocol.md,
 * "Client sessions") and the replies of its committed requests at or above the mark, at most
 * {@link Request#SESSION_WINDOW} of them. Only committed requests move the mark, so what it decides is what
 * the replicated reply cache would decide (refuse the request); this only saves the ordering and the
 * refusal. Part of the replica's state machine; not thread-safe.
 */
final class CommittedReplies {
    private final Map<Long, NavigableMap<Long, Reply>> byClient = new HashMap<>();
    private final Map<Long, Long> marks = new HashMap<>();

    /** Remembers the reply of a committed request. */
    void add(Reply reply) {
        if (reply.requestSeq() < mark(reply.clientId())) {
            return;
        }
        NavigableMap<Long, Reply> replies = byClient.computeIfAbsent(reply.clientId(), client -> new TreeMap<>());
        replies.put(reply.requestSeq(), reply);
        while (replies.size() > Request.SESSION_WINDOW) {
            replies.pollFirstEntry();
        }
    }

    /**
     * A committed request: its client acknowledged every request below its lowest unanswered number, so
     * their replies are forgotten and a copy of any of them that arrives later is {@link #answered}. Returns
     * whether the client's mark rose.
     */
    boolean acknowledge(Request committed) {
        long clientId = committed.clientId();
        long mark = committed.lowestUnanswered();
        if (mark <= mark(clientId)) {
            return false;
        }
        marks.put(clientId, mark);
        NavigableMap<Long, Reply> replies = byClient.get(clientId);
        if (replies != null) {
            replies.headMap(mark, false).clear();
        }
        return true;
    }

    /**
     * Whether {@code request} lies below its client's acknowledged mark: the client holds its reply and no
     * longer waits for it (a late copy, such as a forward sent again before the forwarder saw it commit).
     */
    boolean answered(Request request) {
        return request.requestSeq() < mark(request.clientId());
    }

    /** The committed reply to {@code request}, or {@code null}. */
    Reply find(Request request) {
        NavigableMap<Long, Reply> replies = byClient.get(request.clientId());
        return replies == null ? null : replies.get(request.requestSeq());
    }

    private long mark(long clientId) {
        return marks.getOrDefault(clientId, 0L);
    }
}
