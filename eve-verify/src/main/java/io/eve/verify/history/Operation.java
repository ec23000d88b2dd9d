package io.eve.verify.history;

import java.util.Objects;

/**
 * One client operation as a client saw it: when it was invoked, when (if ever) it completed, what it
 * asked and what it got. An operation that never completed ({@link #PENDING}) may or may not have taken
 * effect; the checker tries both.
 *
 * @param client the client that issued it; a client has at most one operation outstanding
 * @param invokedAt when the client sent it (any monotonic clock shared by the clients)
 * @param completedAt when the client got its result, or {@link #PENDING}
 * @param input what was asked
 * @param output what came back ({@code null} while pending)
 * @param <I> inputs
 * @param <O> outputs
 */
public record Operation<I, O>(int client, long invokedAt, long completedAt, I input, O output) {
    /** The completion time of an operation that never completed. */
    public static final long PENDING = Long.MAX_VALUE;

    public Operation {
        Objects.requireNonNull(input, "input");
        if (completedAt < invokedAt) {
            throw new IllegalArgumentException(
                    "operation completes at " + completedAt + " before its invocation at " + invokedAt);
        }
    }

    public boolean pending() {
        return completedAt == PENDING;
    }
}
