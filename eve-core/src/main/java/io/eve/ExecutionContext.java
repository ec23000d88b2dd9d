package io.eve;

import java.util.SplittableRandom;

/**
 * What a request may know besides its payload and the state (DESIGN.md section 6): the batch it belongs
 * to, its position there, the batch timestamp (the only clock) and a random source seeded from the
 * batch seed and the position, so every replica sees the same numbers whatever the scheduling.
 *
 * <p>One per request; confined to the thread executing it.
 */
public final class ExecutionContext {
    private final long batchSeq;
    private final int index;
    private final long timestampMillis;
    private final long clientId;
    private final long requestSeq;
    private final long seed;
    private SplittableRandom random;

    public ExecutionContext(
            long batchSeq, int index, long timestampMillis, long batchSeed, long clientId, long requestSeq) {
        this.batchSeq = batchSeq;
        this.index = index;
        this.timestampMillis = timestampMillis;
        this.clientId = clientId;
        this.requestSeq = requestSeq;
        this.seed = mix(batchSeed + 0x9E3779B97F4A7C15L * (index + 1L));
    }

    /** The sequence number of the batch. */
    public long batchSeq() {
        return batchSeq;
    }

    /** The request's position in its batch. */
    public int index() {
        return index;
    }

    /** The batch's timestamp, chosen by the primary, in milliseconds since the epoch. */
    public long timestampMillis() {
        return timestampMillis;
    }

    public long clientId() {
        return clientId;
    }

    public long requestSeq() {
        return requestSeq;
    }

    /** Random numbers that are the same on every replica for this request. */
    public SplittableRandom random() {
        if (random == null) {
            random = new SplittableRandom(seed);
        }
        return random;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
