package io.eve.rdma;

import io.eve.rdma.control.ControlChannel;
import io.eve.rdma.control.ControlFrame;
import io.eve.rdma.ring.Poll;
import io.eve.rdma.ring.RingLayout;
import io.eve.rdma.ring.RingReader;
import io.eve.rdma.ring.RingWriter;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything one node keeps about one peer: the ring the peer writes into (our region, its reader and the
 * sequencer that merges it with the control channel) and the ring we write into (the peer's region, our
 * writer, the messages waiting for credit and those not yet acknowledged). Either direction failing
 * degrades the pair to the control channel: the peer is told, and what it may not have is resent there.
 *
 * <p>Owned by the transport's thread, except {@link #firstRetained}, read by Netty's thread.
 */
final class PeerLink {
    private static final Logger LOG = LoggerFactory.getLogger(PeerLink.class);
    private static final int RETAIN_LIMIT = 1 << 20;
    private static final int ACK_EVERY = 64;
    private static final int POLL_BUDGET = 256;
    private static final long CORRUPTION_GRACE_NANOS = 20_000_000L;
    private static final long CREDIT_REFRESH_NANOS = 10_000_000L;

    final int id;
    private final int self;
    private final OneSidedFabric fabric;
    private final ControlChannel control;
    private final RingLayout layout;
    private final BiConsumer<Long, byte[]> deliver;
    private final ByteBuffer region;
    private final RegionDescriptor localDescriptor;
    private final Sequencer sequencer = new Sequencer();
    private final ArrayDeque<Outgoing> queue = new ArrayDeque<>();
    private final ArrayDeque<Outgoing> unacked = new ArrayDeque<>();
    private RingReader reader;
    private RemoteRegion remote;
    private RingWriter writer;
    private boolean degraded;
    private long nextSeq = 1;
    private long incarnation;
    private long lastAckSent;
    private long corruptSince;
    private long lastCreditNanos;
    volatile long firstRetained = 1;
    volatile boolean ringOpen;
    volatile long sentByRing;
    volatile long sentByControl;

    PeerLink(
            int id,
            int self,
            OneSidedFabric fabric,
            ControlChannel control,
            RingLayout layout,
            BiConsumer<Long, byte[]> deliver) {
        this.id = id;
        this.self = self;
        this.fabric = fabric;
        this.control = control;
        this.layout = layout;
        this.deliver = deliver;
        this.region = layout.newRegion();
        this.localDescriptor = fabric.register(id, region);
        this.reader = new RingReader(layout, region);
    }

    /** Tells the peer where it may write, asking for its own region in return. */
    void announce() {
        control.send(id, new ControlFrame.Descriptor(localDescriptor, true));
    }

    boolean degraded() {
        return degraded;
    }

    boolean ringReady() {
        return writer != null && !degraded;
    }

    void enqueue(byte[] frame) {
        queue.add(new Outgoing(nextSeq++, frame));
    }

    /** Moves waiting messages onto a path, in order: the ring while credit lasts, else the control channel. */
    void drain() {
        checkWritePath();
        for (Outgoing next = queue.peek(); next != null; next = queue.peek()) {
            if (ringReady() && next.frame.length <= layout.maxPayload()) {
                if (!writer.tryAppend(next.seq, next.frame, 0, next.frame.length)) {
                    writer.flush();
                    return;
                }
                sentByRing++;
            } else {
                sendByControl(next);
            }
            queue.poll();
            retain(next);
        }
    }

    private void sendByControl(Outgoing message) {
        message.viaControl = true;
        sentByControl++;
        control.send(id, new ControlFrame.Data(message.seq, message.frame));
    }

    private void retain(Outgoing message) {
        unacked.add(message);
        if (unacked.size() > RETAIN_LIMIT) {
            unacked.poll();
            firstRetained = unacked.isEmpty() ? nextSeq : unacked.peek().seq;
        }
    }

    /** Polls our ring for this peer, reads its credit, and acknowledges what was delivered. */
    boolean poll(long now) {
        boolean progress = false;
        if (writer != null && !degraded) {
            release(writer.credit().acked());
        }
        Poll result = Poll.EMPTY;
        for (int i = 0; i < POLL_BUDGET && reader != null; i++) {
            result = reader.poll((seq, frame) -> sequencer.accept(seq, frame, deliver));
            if (result != Poll.DELIVERED) {
                break;
            }
            progress = true;
        }
        checkCorruption(result, now);
        acknowledge(result != Poll.DELIVERED, now);
        return progress;
    }

    private void checkCorruption(Poll result, long now) {
        if (result != Poll.CORRUPT) {
            corruptSince = 0;
        } else if (corruptSince == 0) {
            corruptSince = now;
        } else if (now - corruptSince > CORRUPTION_GRACE_NANOS) {
            degrade("an entry from node " + id + " failed its checksum at ring position " + reader.consumed());
        }
    }

    private void acknowledge(boolean idle, long now) {
        long acked = sequencer.acked();
        if (remote != null && !degraded && reader != null) {
            boolean refresh = idle && now - lastCreditNanos > CREDIT_REFRESH_NANOS;
            reader.publishCredit(remote, acked, idle, refresh);
            if (refresh) {
                lastCreditNanos = now;
            }
            checkWritePath();
            return;
        }
        if (acked > lastAckSent && (idle || acked - lastAckSent >= ACK_EVERY)) {
            control.send(id, new ControlFrame.Ack(acked));
            lastAckSent = acked;
        }
    }

    private void checkWritePath() {
        Throwable failure = writer == null ? null : writer.failure();
        if (failure != null && !degraded) {
            degrade("the RDMA write path to node " + id + " failed: " + failure.getMessage());
        }
    }

    void onFrame(ControlFrame frame) {
        if (frame instanceof ControlFrame.Data data) {
            sequencer.accept(data.seq(), data.frame(), deliver);
        } else if (frame instanceof ControlFrame.Ack ack) {
            release(ack.seq());
        } else if (frame instanceof ControlFrame.Descriptor descriptor) {
            onDescriptor(descriptor);
        } else if (frame instanceof ControlFrame.Hello hello) {
            onHello(hello);
        } else if (frame instanceof ControlFrame.Degrade degrade && !degraded) {
            degrade("node " + id + " stopped using RDMA with us: " + degrade.reason());
        }
    }

    private void onHello(ControlFrame.Hello hello) {
        if (incarnation != 0 && incarnation != hello.incarnation()) {
            // A restarted peer starts its seqs and rings afresh; this pair stays on the control channel.
            degrade("node " + id + " restarted");
        }
        incarnation = hello.incarnation();
        sequencer.skipTo(hello.firstSeq(), deliver);
    }

    private void onDescriptor(ControlFrame.Descriptor descriptor) {
        if (descriptor.wantReply()) {
            control.send(id, new ControlFrame.Descriptor(localDescriptor, false));
        }
        if (degraded
                || (remote != null
                        && remote.descriptor().epoch() == descriptor.region().epoch())) {
            return;
        }
        if (remote != null) {
            degrade("node " + id + " registered a new region");
            return;
        }
        remote = fabric.open(id, descriptor.region());
        writer = new RingWriter(layout, remote, region);
        ringOpen = true;
        LOG.debug("node {}: RDMA path to node {} open", self, id);
    }

    /**
     * Control frames to the peer may have been lost (a connection broke, or frames were dropped before the
     * first one): resend what went that way and is not acknowledged. The peer's sequencer drops what it had.
     */
    void resendByControl() {
        for (Outgoing message : unacked) {
            if (message.viaControl) {
                control.send(id, new ControlFrame.Data(message.seq, message.frame));
            }
        }
    }

    private void release(long acked) {
        while (!unacked.isEmpty() && unacked.peek().seq <= acked) {
            unacked.poll();
        }
        firstRetained = unacked.isEmpty() ? (queue.isEmpty() ? nextSeq : queue.peek().seq) : unacked.peek().seq;
    }

    /**
     * Stops using RDMA with this peer: revokes its access to our region, tells it, and resends on the control
     * channel, in seq order, every message the ring carried that it has not acknowledged.
     */
    void degrade(String reason) {
        if (degraded) {
            return;
        }
        degraded = true;
        ringOpen = false;
        LOG.warn("node {}: using the control channel for node {} from now on: {}", self, id, reason);
        fabric.revoke(id);
        reader = null;
        writer = null;
        control.send(id, new ControlFrame.Degrade(reason));
        Iterator<Outgoing> pending = unacked.iterator();
        while (pending.hasNext()) {
            Outgoing message = pending.next();
            if (!message.viaControl) {
                sendByControl(message);
            }
        }
        if (remote != null) {
            remote.close();
        }
    }

    void close() {
        if (remote != null) {
            remote.close();
        }
    }
}
