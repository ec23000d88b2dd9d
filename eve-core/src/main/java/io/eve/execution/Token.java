package io.eve.execution;

import io.eve.merkle.Digest;
import io.eve.merkle.codec.HashSink;
import java.util.Objects;

/**
 * What an execution replica tells the verification stage about batch {@code seq} (Eve §4): the state it
 * reached, the replies it produced, and the token it built on, all bound into one digest. Two replicas
 * agree on a batch exactly when their token digests are equal, which also means they agree on the whole
 * history before it.
 *
 * @param seq the batch
 * @param stateRoot the Merkle root of the state after the batch
 * @param replyDigest the digest of the batch's replies, in batch order
 * @param previous the digest of the token of batch {@code seq - 1}
 * @param digest SHA-256(0x10 || seq || stateRoot || replyDigest || previous)
 */
public record Token(long seq, Digest stateRoot, Digest replyDigest, Digest previous, Digest digest) {
    public Token {
        Objects.requireNonNull(stateRoot, "stateRoot");
        Objects.requireNonNull(replyDigest, "replyDigest");
        Objects.requireNonNull(previous, "previous");
        Objects.requireNonNull(digest, "digest");
    }

    public static Token of(long seq, Digest stateRoot, Digest replyDigest, Digest previous) {
        HashSink sink = HashSink.forCurrentThread();
        sink.putByte(0x10);
        sink.putLong(seq);
        sink.putDigest(stateRoot);
        sink.putDigest(replyDigest);
        sink.putDigest(previous);
        return new Token(seq, stateRoot, replyDigest, previous, sink.finish());
    }

    /** The token of the initial state: version 0, no replies, nothing before it. */
    public static Token genesis(Digest initialRoot) {
        return of(0, initialRoot, Digest.ZERO, Digest.ZERO);
    }

    /** Whether this token is bound to the same history and outcome as {@code other}. */
    public boolean matches(Token other) {
        return other != null && digest.equals(other.digest);
    }

    @Override
    public String toString() {
        return "Token[" + seq + ", " + digest + "]";
    }
}
