package io.eve.tpcw.interaction;

import io.eve.ExecutionContext;

/**
 * Per-client id spaces for rows created at run time: id = client id × 2^32 + a counter the client keeps.
 * Ids of the initial population are below 2^32. Unlike TPC-W's racy {@code MAX(id) + 1}, such ids do not
 * depend on the order in which concurrent requests run, and two clients never pick the same one; the
 * server checks that a request only creates rows in its own client's space.
 */
public final class Ids {
    private Ids() {}

    /** The {@code counter}-th id of client {@code clientId}. */
    public static long of(long clientId, long counter) {
        if (clientId < 1 || clientId >= (1L << 31) || counter < 1 || counter >= (1L << 32)) {
            throw new IllegalArgumentException(
                    "client ids are in 1..2^31-1 and counters in 1..2^32-1, got " + clientId + " and " + counter);
        }
        return (clientId << 32) | counter;
    }

    /**
     * {@code id}, if it lies in the space of the request's client.
     *
     * @throws IllegalArgumentException otherwise, naming the id and the client
     */
    public static long requireOwned(long id, ExecutionContext context, String what) {
        if ((id >>> 32) != context.clientId() || (id & 0xFFFF_FFFFL) == 0) {
            throw new IllegalArgumentException(
                    "new " + what + " id " + id + " is not in the id space of client " + context.clientId());
        }
        return id;
    }
}
