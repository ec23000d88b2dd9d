package io.eve.rdma.ring;

import java.nio.ByteBuffer;

/**
 * The credit record a receiver writes into its sender's region: how many ring bytes it consumed, the
 * highest message seq it delivered without a gap, and {@code sleep}: the epoch of the receiver's current
 * sleep if it wrote the record as it went to sleep (armed its doorbell), else 0. Read by the sender; a torn
 * or stale record is ignored.
 */
public record Credit(long consumed, long acked, long sleep) {
    public static final Credit NONE = new Credit(0, 0, 0);

    /** The record in {@code region}, or {@code null} if it is torn (a write is being placed). */
    static Credit read(ByteBuffer region) {
        long consumed = (long) RingLayout.LONG.getAcquire(region, RingLayout.CREDIT_OFFSET);
        long acked = (long) RingLayout.LONG.getAcquire(region, RingLayout.CREDIT_OFFSET + 8);
        long sleep = (long) RingLayout.LONG.getAcquire(region, RingLayout.CREDIT_OFFSET + 16);
        long check = (long) RingLayout.LONG.getAcquire(region, RingLayout.CREDIT_OFFSET + 24);
        if (consumed == 0 && acked == 0 && sleep == 0 && check == 0) {
            return NONE;
        }
        return check == RingLayout.creditCheck(consumed, acked, sleep) && consumed >= 0
                ? new Credit(consumed, acked, sleep)
                : null;
    }

    /**
     * The later of two records: credits only grow, so a reordered older write never takes any back. The sleep
     * epoch is not merged (the writer looks at each record's own, {@link RingWriter#wakeIfAsleep()}).
     */
    Credit max(Credit other) {
        if (other == null || (other.consumed <= consumed && other.acked <= acked)) {
            return this; // the common case on every poll of an idle pair: nothing new, nothing allocated
        }
        return new Credit(Math.max(consumed, other.consumed), Math.max(acked, other.acked), 0);
    }
}
