package io.eve;

import java.util.Objects;
import java.util.function.Function;

/**
 * How an application's request and reply types become bytes and back. The replicas decode requests and
 * encode replies ({@link Application#typed}); a client encodes requests and decodes replies
 * ({@link io.eve.client.ServiceClient}).
 *
 * <p>Both directions must be deterministic: every replica must decode the same request from the same bytes
 * and encode the same reply to the same bytes, or the replicas' tokens differ. A decoder refuses bytes it
 * cannot read by throwing a runtime exception whose message says what was wrong. Implementations are
 * called from several threads at once and must be thread-safe (a stateless codec is).
 *
 * @param <Q> the request type
 * @param <R> the reply type
 */
public interface RequestCodec<Q, R> {

    byte[] encodeRequest(Q request);

    Q decodeRequest(byte[] payload);

    byte[] encodeReply(R reply);

    R decodeReply(byte[] payload);

    /** A codec made of four functions, for codecs small enough to write as lambdas. */
    static <Q, R> RequestCodec<Q, R> of(
            Function<Q, byte[]> encodeRequest,
            Function<byte[], Q> decodeRequest,
            Function<R, byte[]> encodeReply,
            Function<byte[], R> decodeReply) {
        return new FunctionCodec<>(
                Objects.requireNonNull(encodeRequest, "encodeRequest"),
                Objects.requireNonNull(decodeRequest, "decodeRequest"),
                Objects.requireNonNull(encodeReply, "encodeReply"),
                Objects.requireNonNull(decodeReply, "decodeReply"));
    }
}
