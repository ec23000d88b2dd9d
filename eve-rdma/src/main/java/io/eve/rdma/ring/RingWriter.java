package io.eve.rdma.ring;

import io.eve.rdma.RemoteRegion;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.CompletableFuture;

/**
 * The sending end of one ring: appends entries into the peer's region through a {@link RemoteRegion} while
 * credit allows, and never overwrites an entry the peer has not consumed. Credit arrives as a record the
 * peer writes into our own region for it ({@code localRegion}).
 *
 * <p>Not thread-safe: the transport's thread owns it.
 */
public final class RingWriter {
    private final RingLayout layout;
    private final RemoteRegion remote;
    private final ByteBuffer localRegion;
    private long tail;
    private long nextRingSeq = 1;
    private Credit credit = Credit.NONE;
    private long rung;
    private volatile Throwable failure;

    public RingWriter(RingLayout layout, RemoteRegion remote, ByteBuffer localRegion) {
        this.layout = layout;
        this.remote = remote;
        this.localRegion = localRegion;
    }

    /**
     * Appends an entry carrying {@code msgSeq} and {@code payload[offset, offset + length)} if credit allows.
     *
     * @return false when out of credit (retry after the peer consumes) or the path's send queue is full
     *     (retry after completions); nothing is written then
     * @throws IllegalArgumentException if the payload exceeds the layout's maximum
     */
    public boolean tryAppend(long msgSeq, byte[] payload, int offset, int length) {
        if (length > layout.maxPayload()) {
            throw new IllegalArgumentException(
                    "a ring entry carries at most " + layout.maxPayload() + " bytes, got " + length);
        }
        int ringBytes = layout.ringBytes();
        int index = (int) (tail % ringBytes);
        int remaining = ringBytes - index;
        int size = RingLayout.entrySize(length);
        int skip = remaining < RingLayout.MIN_ENTRY || size > remaining ? remaining : 0;
        if (!hasRoom(skip + size) || remote.postSlots() < 2) {
            return false;
        }
        if (skip >= RingLayout.MIN_ENTRY) {
            post(index, encode(nextRingSeq++, 0, RingLayout.WRAP, payload, 0, 0));
        }
        tail += skip;
        post((int) (tail % ringBytes), encode(nextRingSeq++, msgSeq, length, payload, offset, length));
        tail += size;
        return true;
    }

    private boolean hasRoom(long bytes) {
        if (tail + bytes - credit.consumed() <= layout.ringBytes()) {
            return true;
        }
        credit = credit.max(Credit.read(localRegion));
        return tail + bytes - credit.consumed() <= layout.ringBytes();
    }

    /** The latest credit record the peer wrote (consumed bytes, acknowledged message seq). */
    public Credit credit() {
        credit = credit.max(Credit.read(localRegion));
        return credit;
    }

    /**
     * Rings the reader's doorbell if its latest credit record says it went to sleep (armed epoch {@code E})
     * having consumed less than we have written, and we have not rung for {@code E} yet. Called after every
     * append and on every poll: whichever of our entry and its record lands first, the entry is either seen
     * by the reader's last look before sleeping or followed by a doorbell once the record is read here.
     *
     * @return whether a doorbell was posted
     */
    public boolean wakeIfAsleep() {
        if (tail <= credit.consumed()) {
            return false; // the reader has read everything we wrote: nothing to wake it for (no record read)
        }
        Credit latest = Credit.read(localRegion);
        if (latest == null || latest.sleep() <= rung || tail <= latest.consumed() || remote.postSlots() < 1) {
            return false;
        }
        rung = latest.sleep();
        track(remote.doorbell());
        return true;
    }

    /** Bytes written and not yet consumed by the peer, as far as the last credit says. */
    public long unconsumed() {
        return tail - credit.consumed();
    }

    /**
     * The first failure of a write, or {@code null}: then the path is broken. It is the fabric's own error
     * (a failed completion's status such as {@code IBV_WC_RETRY_EXC_ERR}, or a refused post), whichever of
     * this writer's futures or the path reported it first.
     */
    public Throwable failure() {
        Throwable cause = failure;
        return cause != null ? unwrap(cause) : remote.failure();
    }

    private static Throwable unwrap(Throwable cause) {
        Throwable inner = cause;
        while (inner instanceof java.util.concurrent.CompletionException && inner.getCause() != null) {
            inner = inner.getCause();
        }
        return inner;
    }

    public void flush() {
        remote.flush();
    }

    private void post(int index, ByteBuffer entry) {
        CompletableFuture<Void> done;
        try {
            done = remote.write(RingLayout.RING_OFFSET + (long) index, entry);
        } catch (RuntimeException e) {
            failure = failure == null ? e : failure;
            return;
        }
        track(done);
    }

    private void track(CompletableFuture<Void> done) {
        done.whenComplete((ignored, cause) -> {
            if (cause != null && failure == null) {
                failure = cause;
            }
        });
    }

    static ByteBuffer encode(long ringSeq, long msgSeq, int length, byte[] payload, int offset, int count) {
        ByteBuffer entry = ByteBuffer.allocate(RingLayout.entrySize(count)).order(ByteOrder.LITTLE_ENDIAN);
        entry.putLong(ringSeq).putLong(msgSeq).putInt(length);
        entry.putInt(RingLayout.checksum(ringSeq, msgSeq, length, payload, offset, count));
        entry.put(payload, offset, count);
        entry.position(entry.capacity() - Long.BYTES);
        entry.putLong(ringSeq).flip();
        return entry;
    }
}
