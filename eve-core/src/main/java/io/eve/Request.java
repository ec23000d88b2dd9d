package io.eve;

import java.util.Arrays;
import java.util.Objects;

/**
 * A client's request: who sent it, its number in that client's sequence, the client's lowest request
 * number still waiting for a reply (its session window, for exactly-once: docs/protocol.md, "Client
 * sessions"), and the application payload.
 *
 * @param clientId the client's id, unique in the cluster
 * @param requestSeq the client's request number, starting at 1 and growing by one per new request
 * @param lowestUnanswered the client's lowest request number it has no reply for (and still waits for)
 *     when it sent this one: the replicas may forget the replies of every lower number
 * @param payload the application's bytes
 */
public record Request(long clientId, long requestSeq, long lowestUnanswered, byte[] payload) {
    /**
     * The most request numbers a client's session spans: replicas execute a request only if
     * {@code requestSeq - lowestUnanswered < SESSION_WINDOW}, counting the session's acknowledged mark,
     * and keep at most this many replies per client.
     */
    public static final int SESSION_WINDOW = 1024;

    public Request {
        Objects.requireNonNull(payload, "payload");
        if (requestSeq < 1) {
            throw new IllegalArgumentException("request numbers start at 1, got " + requestSeq);
        }
        if (lowestUnanswered < 1 || lowestUnanswered > requestSeq) {
            throw new IllegalArgumentException("the lowest unanswered request number must lie between 1 and the"
                    + " request's own number " + requestSeq + ", got " + lowestUnanswered);
        }
    }

    /** A request of a client that has no other request waiting (every earlier one was answered). */
    public Request(long clientId, long requestSeq, byte[] payload) {
        this(clientId, requestSeq, requestSeq, payload);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Request that
                && clientId == that.clientId
                && requestSeq == that.requestSeq
                && lowestUnanswered == that.lowestUnanswered
                && Arrays.equals(payload, that.payload);
    }

    @Override
    public int hashCode() {
        return Objects.hash(clientId, requestSeq, lowestUnanswered, Arrays.hashCode(payload));
    }

    @Override
    public String toString() {
        return "Request[client " + clientId + " #" + requestSeq + " (from #" + lowestUnanswered + "), " + payload.length
                + " bytes]";
    }
}
