package io.eve.merkle;

import java.util.Objects;

/**
 * An encoded difference between two versions of a state, for incremental state transfer.
 *
 * <p>{@code payload} is self-contained and safe to send over the network; the receiver validates every
 * length and count in it before allocating, and checks the resulting root before keeping anything.
 *
 * @param baseSeq the version the receiver must be at
 * @param targetSeq the version the delta produces
 * @param payload the encoded changes (format in docs/state-format.md)
 */
public record StateDelta(long baseSeq, long targetSeq, byte[] payload) {
    public StateDelta {
        payload = Objects.requireNonNull(payload, "payload").clone();
        if (baseSeq < VersionedState.NOTHING || targetSeq < baseSeq) {
            throw new IllegalArgumentException(
                    "a delta goes from a version to a later one, got " + baseSeq + " -> " + targetSeq);
        }
    }

    /** A copy of the encoded changes. */
    @Override
    public byte[] payload() {
        return payload.clone();
    }

    /** The size of the encoded delta in bytes. */
    public int size() {
        return payload.length;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof StateDelta that
                && baseSeq == that.baseSeq
                && targetSeq == that.targetSeq
                && java.util.Arrays.equals(payload, that.payload);
    }

    @Override
    public int hashCode() {
        return Objects.hash(baseSeq, targetSeq, java.util.Arrays.hashCode(payload));
    }

    @Override
    public String toString() {
        return "StateDelta[" + baseSeq + " -> " + targetSeq + ", " + payload.length + " bytes]";
    }
}
