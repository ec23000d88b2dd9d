package io.eve.rdma.ring;

import io.eve.rdma.RemoteRegion;
import java.nio.ByteBuffer;

/**
 * The receiving end of one ring: polls the head of the ring in our own region, delivers a complete entry
 * (sequence, canary and CRC32C all valid), zeroes its bytes and then, in batches, writes the consumed
 * position back to the sender as credit. Before its thread sleeps it arms a doorbell through the same record
 * ({@link #arm}). A torn entry is never delivered: {@link Poll#PENDING} until it
 * is whole.
 *
 * <p>Not thread-safe: the transport's thread owns it.
 */
public final class RingReader {
    private static final byte[] ZEROES = new byte[4096];

    private final RingLayout layout;
    private final ByteBuffer region;
    private long head;
    private long nextRingSeq = 1;
    private long publishedHead;
    private long publishedAcked;
    private long sleep;

    /** Receives the entries of a ring, in ring order. */
    @FunctionalInterface
    public interface EntrySink {
        void onEntry(long msgSeq, byte[] payload);
    }

    public RingReader(RingLayout layout, ByteBuffer region) {
        this.layout = layout;
        this.region = region;
    }

    /** Looks at the head once; delivers at most one entry to {@code sink}. */
    public Poll poll(EntrySink sink) {
        int ringBytes = layout.ringBytes();
        int index = (int) (head % ringBytes);
        if (ringBytes - index < RingLayout.MIN_ENTRY) {
            head += ringBytes - index;
            index = 0;
        }
        int at = RingLayout.RING_OFFSET + index;
        long seq = (long) RingLayout.LONG.getAcquire(region, at);
        if (seq != nextRingSeq) {
            return seq == 0 ? Poll.EMPTY : Poll.PENDING;
        }
        int length = region.getInt(at + 16);
        boolean wrap = length == RingLayout.WRAP;
        if (!wrap && (length < 0 || length > layout.maxPayload() || index + RingLayout.entrySize(length) > ringBytes)) {
            return Poll.PENDING;
        }
        int payloadBytes = wrap ? 0 : length;
        int size = RingLayout.entrySize(payloadBytes);
        long canary = (long) RingLayout.LONG.getAcquire(region, at + size - Long.BYTES);
        if (canary != nextRingSeq) {
            return Poll.PENDING;
        }
        long msgSeq = region.getLong(at + 8);
        byte[] payload = new byte[payloadBytes];
        region.get(at + RingLayout.HEADER, payload);
        if (region.getInt(at + 20) != RingLayout.checksum(seq, msgSeq, length, payload, 0, payloadBytes)) {
            return Poll.CORRUPT;
        }
        if (wrap) {
            zero(at, ringBytes - index);
            head += ringBytes - index;
            nextRingSeq++;
            return poll(sink);
        }
        zero(at, size);
        head += size;
        nextRingSeq++;
        sink.onEntry(msgSeq, payload);
        return Poll.DELIVERED;
    }

    /** Ring bytes consumed so far (monotonic, counting skipped ends). */
    public long consumed() {
        return head;
    }

    /**
     * Writes the credit record (consumed bytes and {@code acked}, the highest message seq delivered without
     * a gap) into the sender's region if it moved enough: a quarter of the ring, or any amount once the ring
     * is idle ({@code idle}), or again when {@code refresh} asks (a record can be overtaken by an older one).
     */
    public void publishCredit(RemoteRegion sender, long acked, boolean idle, boolean refresh) {
        boolean moved = head != publishedHead || acked != publishedAcked;
        boolean enough = head - publishedHead >= layout.ringBytes() / 4;
        if (!(enough || (idle && moved) || refresh) || sender.postSlots() < 1) {
            return;
        }
        sender.write(RingLayout.CREDIT_OFFSET, RingLayout.credit(head, acked, sleep));
        publishedHead = head;
        publishedAcked = acked;
    }

    /**
     * Arms the doorbell before the reader's thread sleeps: writes a credit record that carries sleep epoch
     * {@code epoch} (positive, larger than any before) and the position the reader has consumed to. A sender
     * that has written beyond that position, or writes beyond it later, rings the doorbell once for the epoch
     * ({@link RingWriter#wakeIfAsleep()}). Records written until {@link #disarm()} carry the same epoch.
     *
     * @return false if the record could not be posted (the send queue is full): the doorbell is not armed
     */
    public boolean arm(RemoteRegion sender, long acked, long epoch) {
        if (sender.postSlots() < 1) {
            return false;
        }
        sleep = epoch;
        sender.write(RingLayout.CREDIT_OFFSET, RingLayout.credit(head, acked, epoch));
        publishedHead = head;
        publishedAcked = acked;
        return true;
    }

    /** The reader is awake: later records carry no sleep epoch, so a sender rings no doorbell for them. */
    public void disarm() {
        sleep = 0;
    }

    private void zero(int at, int count) {
        for (int done = 0; done < count; done += ZEROES.length) {
            region.put(at + done, ZEROES, 0, Math.min(ZEROES.length, count - done));
        }
        java.lang.invoke.VarHandle.releaseFence();
    }
}
