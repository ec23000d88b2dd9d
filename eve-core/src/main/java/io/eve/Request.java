package io.eve;

import java.util.Arrays;
import java.util.Objects;

/**
 * A client's request: who sent it, its number in that client's sequence (for exactly-once), and the
 * application payload.
 *
 * @param clientId the client's id, unique in the cluster
 * @param requestSeq the client's request number, starting at 1 and growing by one per new request
 * @param payload the application's bytes
 */
public record Request(long clientId, long requestSeq, byte[] payload) {
    public Request {
        Objects.requireNonNull(payload, "payload");
        if (requestSeq < 1) {
            throw new IllegalArgumentException("request numbers start at 1, got " + requestSeq);
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Request that
                && clientId == that.clientId
                && requestSeq == that.requestSeq
                && Arrays.equals(payload, that.payload);
    }

    @Override
    public int hashCode() {
        return Objects.hash(clientId, requestSeq, Arrays.hashCode(payload));
    }

    @Override
    public String toString() {
        return "Request[client " + clientId + " #" + requestSeq + ", " + payload.length + " bytes]";
    }
}
