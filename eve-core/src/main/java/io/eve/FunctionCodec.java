package io.eve;

import java.util.function.Function;

/** {@link RequestCodec#of}: a codec made of four functions; as thread-safe as they are. */
record FunctionCodec<Q, R>(
        Function<Q, byte[]> requestEncoder,
        Function<byte[], Q> requestDecoder,
        Function<R, byte[]> replyEncoder,
        Function<byte[], R> replyDecoder)
        implements RequestCodec<Q, R> {

    @Override
    public byte[] encodeRequest(Q request) {
        return requestEncoder.apply(request);
    }

    @Override
    public Q decodeRequest(byte[] payload) {
        return requestDecoder.apply(payload);
    }

    @Override
    public byte[] encodeReply(R reply) {
        return replyEncoder.apply(reply);
    }

    @Override
    public R decodeReply(byte[] payload) {
        return replyDecoder.apply(payload);
    }
}
