package io.eve.verify.quorum;

import io.eve.Reply;
import io.eve.Request;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * An execution replica's memory of committed replies, to answer a client's retry at once (Eve §6.1)
 * without a trip through the execution stage: per client, the replies of its session window, forgotten
 * as the client's requests say it no longer waits for them (docs/protocol.md, "Client sessions"), and at
 * most {@link Request#SESSION_WINDOW} of them. The replicated reply cache stays the authority; this only
 * saves work. Part of the replica's state machine; not thread-safe.
 */
final class CommittedReplies {
    private final Map<Long, NavigableMap<Long, Reply>> byClient = new HashMap<>();

    /** Remembers a committed reply. */
    void add(Reply reply) {
        NavigableMap<Long, Reply> replies = byClient.computeIfAbsent(reply.clientId(), client -> new TreeMap<>());
        replies.put(reply.requestSeq(), reply);
        while (replies.size() > Request.SESSION_WINDOW) {
            replies.pollFirstEntry();
        }
    }

    /**
     * The committed reply to {@code request}, or {@code null}; first forgets the client's replies below the
     * request's lowest unanswered number.
     */
    Reply find(Request request) {
        NavigableMap<Long, Reply> replies = byClient.get(request.clientId());
        if (replies == null) {
            return null;
        }
        replies.headMap(request.lowestUnanswered(), false).clear();
        return replies.get(request.requestSeq());
    }
}
