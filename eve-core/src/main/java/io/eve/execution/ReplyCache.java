package io.eve.execution;

import io.eve.Reply;
import io.eve.merkle.graph.ObjectGraphState;
import io.eve.merkle.graph.ReplicatedMap;
import java.nio.ByteBuffer;

/**
 * Exactly-once (DESIGN.md section 6): each client's last request number and reply, kept inside the
 * replicated state so a request retried after a failover gets its original reply instead of running twice,
 * on every replica alike. Thread-safe (a replicated map); requests of one client never share a parallel
 * batch, because the execution stage makes them write the same conflict key.
 */
final class ReplyCache {
    static final String ROOT = "eve.clients";

    private final ReplicatedMap<Long, byte[]> byClient;

    ReplyCache(ObjectGraphState state) {
        ReplicatedMap<Long, byte[]> existing = state.root(ROOT, castClass());
        if (existing == null) {
            existing = new ReplicatedMap<>();
            state.setRoot(ROOT, existing);
        }
        this.byClient = existing;
    }

    @SuppressWarnings("unchecked")
    private static Class<ReplicatedMap<Long, byte[]>> castClass() {
        return (Class<ReplicatedMap<Long, byte[]>>) (Class<?>) ReplicatedMap.class;
    }

    /**
     * The reply for a request already answered: the cached one for a retry of the client's last request,
     * an error reply for one older than that (the client has moved on; it is not run again); {@code null}
     * for a new request.
     */
    Reply lookup(long clientId, long requestSeq) {
        return decode(clientId, requestSeq, byClient.get(clientId));
    }

    /**
     * As {@link #lookup(long, long)}, but the client's latest reply of the batch in progress, if any, comes
     * first: the stage records a batch's replies only when it seals the batch (so that the requests of the
     * next batch, which may already run, never write the cache), and a retry in the same batch must still
     * find the reply.
     */
    Reply lookup(long clientId, long requestSeq, Reply inBatch) {
        if (inBatch == null) {
            return lookup(clientId, requestSeq);
        }
        if (inBatch.requestSeq() < requestSeq) {
            return null;
        }
        return inBatch.requestSeq() > requestSeq ? stale(clientId, requestSeq, inBatch.requestSeq()) : inBatch;
    }

    private static Reply decode(long clientId, long requestSeq, byte[] cached) {
        if (cached == null) {
            return null;
        }
        ByteBuffer buffer = ByteBuffer.wrap(cached);
        long cachedSeq = buffer.getLong();
        if (cachedSeq < requestSeq) {
            return null;
        }
        if (cachedSeq > requestSeq) {
            return stale(clientId, requestSeq, cachedSeq);
        }
        boolean error = buffer.get() != 0;
        byte[] payload = new byte[buffer.remaining()];
        buffer.get(payload);
        return new Reply(clientId, cachedSeq, error, payload);
    }

    private static Reply stale(long clientId, long requestSeq, long lastSeq) {
        String text = "stale request " + requestSeq + ": client " + clientId + " already sent request " + lastSeq;
        return new Reply(clientId, requestSeq, true, text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** The cached reply if {@code requestSeq} is the client's last request; {@code null} otherwise. */
    Reply exactly(long clientId, long requestSeq) {
        byte[] cached = byClient.get(clientId);
        if (cached == null || ByteBuffer.wrap(cached).getLong() != requestSeq) {
            return null;
        }
        return lookup(clientId, requestSeq);
    }

    void record(Reply reply) {
        ByteBuffer buffer = ByteBuffer.allocate(9 + reply.payload().length);
        buffer.putLong(reply.requestSeq()).put((byte) (reply.error() ? 1 : 0)).put(reply.payload());
        byClient.put(reply.clientId(), buffer.array());
    }
}
