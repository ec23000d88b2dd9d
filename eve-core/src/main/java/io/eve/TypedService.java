package io.eve;

import io.eve.mixer.ConflictKeys;
import java.util.Objects;

/**
 * A {@link TypedApplication} that is also an {@link Application}, so the launcher ({@code --app}) and
 * {@code EveReplica} run it as it is: extend it, hand the constructor your {@link RequestCodec}, and write
 * {@code state()}, {@code conflictKeys(Q)} and {@code execute(Q, context)}. Each request is decoded once,
 * as with {@link Application#typed}; clients talk to it through {@code ServiceClient} with the same codec.
 *
 * @param <Q> the request type
 * @param <R> the reply type
 */
public abstract class TypedService<Q, R> implements Application, TypedApplication<Q, R> {
    private final RequestCodec<Q, R> codec;
    private final Application bytes;

    protected TypedService(RequestCodec<Q, R> codec) {
        this.codec = Objects.requireNonNull(codec, "codec");
        this.bytes = Application.typed(codec, this);
    }

    /** The codec of this service's requests and replies. */
    public final RequestCodec<Q, R> codec() {
        return codec;
    }

    @Override
    public final PreparedRequest prepare(byte[] payload) {
        return bytes.prepare(payload);
    }

    @Override
    public final ConflictKeys conflictKeys(byte[] payload) {
        return bytes.conflictKeys(payload);
    }

    @Override
    public final byte[] execute(byte[] payload, ExecutionContext context) throws Exception {
        return bytes.execute(payload, context);
    }
}
