package io.eve.batch;

import io.eve.Request;
import java.util.List;
import java.util.Objects;

/**
 * A batch of requests with the nondeterminism data the primary chose for it (Eve §4, §6.2: ND). Every
 * replica executes the same batch with the same timestamp and seed.
 *
 * @param seq the batch sequence number, from 1
 * @param timestampMillis the batch's clock reading, the only time requests may see
 * @param seed the seed of every request's random source
 * @param requests the requests, in order
 */
public record Batch(long seq, long timestampMillis, long seed, List<Request> requests) {
    public Batch {
        if (seq < 1) {
            throw new IllegalArgumentException("batch numbers start at 1, got " + seq);
        }
        requests = List.copyOf(Objects.requireNonNull(requests, "requests"));
    }

    public int size() {
        return requests.size();
    }

    @Override
    public String toString() {
        return "Batch[" + seq + ", " + requests.size() + " requests]";
    }
}
