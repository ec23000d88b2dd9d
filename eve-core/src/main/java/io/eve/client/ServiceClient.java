package io.eve.client;

import io.eve.EveException;
import io.eve.Reply;
import io.eve.RequestCodec;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A typed facade over an {@link EveClient}: sends requests of type {@code Q} encoded with a
 * {@link RequestCodec} and answers with replies of type {@code R}, or with an
 * {@link ApplicationErrorException} carrying the error code the application threw.
 *
 * <pre>{@code
 * try {
 *     Balance balance = accounts.invoke(new Withdraw("alice", 30));
 * } catch (ApplicationErrorException e) {
 *     switch (e.code()) {
 *         case "insufficient-funds" -> ...
 *         default -> throw e;
 *     }
 * }
 * }</pre>
 *
 * <p>Thread-safe, like the client. It does not own the client: closing the client is the caller's job.
 */
public final class ServiceClient<Q, R> {
    private final EveClient client;
    private final RequestCodec<Q, R> codec;

    public ServiceClient(EveClient client, RequestCodec<Q, R> codec) {
        this.client = Objects.requireNonNull(client, "client");
        this.codec = Objects.requireNonNull(codec, "codec");
    }

    /**
     * Sends an ordered request ({@link EveClient#submit}). The future completes with the decoded reply, or
     * fails with an {@link ApplicationErrorException}, or with the client's own failures.
     */
    public CompletableFuture<R> call(Q request) {
        return decoded(client.submit(codec.encodeRequest(request)));
    }

    /**
     * Sends a request that does not change the state with the read-only optimisation ({@link EveClient#read}).
     */
    public CompletableFuture<R> read(Q request) {
        return decoded(client.read(codec.encodeRequest(request)));
    }

    /**
     * Sends an ordered request and waits for its reply ({@link EveClient#call}).
     *
     * @throws ApplicationErrorException if the service answered with an error
     */
    public R invoke(Q request) {
        return result(client.call(codec.encodeRequest(request)));
    }

    private CompletableFuture<R> decoded(CompletableFuture<Reply> reply) {
        CompletableFuture<R> result = new CompletableFuture<>();
        reply.whenComplete((answer, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
                return;
            }
            try {
                result.complete(result(answer));
            } catch (EveException e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /** The decoded reply; throws the error of an error reply. */
    private R result(Reply reply) {
        if (reply.error()) {
            throw new ApplicationErrorException(reply.applicationError().orElseThrow());
        }
        try {
            return codec.decodeReply(reply.payload());
        } catch (RuntimeException e) {
            throw new EveException(
                    "the reply to request " + reply.requestSeq() + " (" + reply.payload().length
                            + " bytes) could not be decoded",
                    e);
        }
    }
}
