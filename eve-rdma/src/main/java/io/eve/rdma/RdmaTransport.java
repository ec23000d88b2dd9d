package io.eve.rdma;

import io.eve.protocol.Message;
import io.eve.rdma.control.ControlChannel;
import io.eve.rdma.control.ControlFrame;
import io.eve.rdma.ring.RingLayout;
import io.eve.transport.Transport;
import io.eve.transport.wire.FrameCodec;
import io.eve.transport.wire.FrameException;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Transport} whose data plane is one-sided writes (DESIGN.md section 10): each message, encoded
 * by {@link FrameCodec}, travels as an entry of the ring the receiver keeps for this sender, written through
 * a {@link OneSidedFabric}; messages larger than a ring entry, and all messages of a pair whose RDMA path
 * failed, travel on a Netty {@link ControlChannel}, which also carries the region descriptors. Every
 * message carries a per-pair seq, so the receiver delivers in send order whichever path each took, and
 * drops what a failing path made us send twice.
 *
 * <p>Thread-safe. One thread per node ("rdma-node-N") polls the rings, moves messages onto paths and
 * delivers to the receiver, one message at a time; it spins briefly, then parks, when idle.
 */
public final class RdmaTransport implements Transport {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaTransport.class);
    private static final int SPINS_BEFORE_PARKING = 200;
    private static final long MAX_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(500);

    private final int self;
    private final OneSidedFabric fabric;
    private final RingLayout layout;
    private final FrameCodec codec;
    private final ControlChannel control;
    private final long incarnation = new SecureRandom().nextLong() | 1;
    private final Queue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final Map<Integer, PeerLink> peers = new ConcurrentHashMap<>();
    private volatile Receiver receiver;
    private volatile Thread loop;
    private volatile boolean closed;

    private RdmaTransport(Builder builder) {
        this.self = builder.self;
        this.fabric = builder.fabric;
        this.layout = new RingLayout(builder.ringBytes, builder.maxEntryPayload);
        this.codec = new FrameCodec(builder.maxFrameBytes);
        this.control = new ControlChannel(
                builder.self, builder.listen, builder.peers, builder.maxFrameBytes + 64, new Events());
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Settings of an RDMA transport. Not thread-safe. */
    public static final class Builder {
        private int self = -1;
        private InetSocketAddress listen;
        private IntFunction<InetSocketAddress> peers = id -> null;
        private OneSidedFabric fabric;
        private int ringBytes = 1 << 20;
        private int maxEntryPayload = 4096;
        private int maxFrameBytes = 16 << 20;

        private Builder() {}

        public Builder self(int id) {
            this.self = id;
            return this;
        }

        /** Where the control channel listens. */
        public Builder listen(InetSocketAddress address) {
            this.listen = Objects.requireNonNull(address, "address");
            return this;
        }

        /** Where each peer's control channel listens. */
        public Builder peers(IntFunction<InetSocketAddress> peers) {
            this.peers = Objects.requireNonNull(peers, "peers");
            return this;
        }

        /** This node's view of the one-sided fabric; the transport closes it. */
        public Builder fabric(OneSidedFabric fabric) {
            this.fabric = Objects.requireNonNull(fabric, "fabric");
            return this;
        }

        /** Bytes of the ring each receiver keeps per sender (a multiple of 8). */
        public Builder ringBytes(int bytes) {
            this.ringBytes = bytes;
            return this;
        }

        /** The largest encoded message that goes through a ring; larger ones take the control channel. */
        public Builder maxEntryPayload(int bytes) {
            this.maxEntryPayload = bytes;
            return this;
        }

        public Builder maxFrameBytes(int bytes) {
            this.maxFrameBytes = bytes;
            return this;
        }

        public RdmaTransport build() {
            if (self < 0) {
                throw new IllegalArgumentException("self must be set to this node's id (0 or more), got " + self);
            }
            if (listen == null || fabric == null) {
                throw new IllegalArgumentException("an RDMA transport needs listen (the control channel's address)"
                        + " and fabric; got listen = " + listen + ", fabric = " + fabric);
            }
            return new RdmaTransport(this);
        }
    }

    @Override
    public int self() {
        return self;
    }

    /** Where the control channel listens, or {@code null} before start. */
    public InetSocketAddress boundAddress() {
        return control.boundAddress();
    }

    @Override
    public void start(Receiver receiver) {
        this.receiver = Objects.requireNonNull(receiver, "receiver");
        control.start();
        Thread thread = new Thread(this::run, "rdma-node-" + self);
        thread.setDaemon(true);
        loop = thread;
        thread.start();
        LOG.info("node {}: RDMA transport up, control channel on {}", self, boundAddress());
    }

    @Override
    public void send(int to, Message message) {
        if (closed) {
            return;
        }
        byte[] frame = codec.encode(message);
        command(() -> peer(to).enqueue(frame));
    }

    /** Messages this node sent to {@code peer} through the ring and through the control channel. */
    public long[] sentCounts(int peer) {
        PeerLink link = peers.get(peer);
        return link == null ? new long[2] : new long[] {link.sentByRing, link.sentByControl};
    }

    /** How many times this node dialled {@code peer}'s control channel and failed. */
    public long failedDials(int peer) {
        return control.failedDials(peer);
    }

    /** Whether the pair with {@code peer} gave up RDMA for the control channel (answered on a later tick). */
    public boolean degraded(int peer) {
        PeerLink link = peers.get(peer);
        return link != null && link.degraded();
    }

    /** Whether this node writes to {@code peer} through a ring now (answered on a later tick). */
    public boolean ringOpen(int peer) {
        PeerLink link = peers.get(peer);
        return link != null && link.ringOpen;
    }

    private void command(Runnable command) {
        commands.add(command);
        Thread thread = loop;
        if (thread != null) {
            LockSupport.unpark(thread);
        }
    }

    private PeerLink peer(int id) {
        PeerLink link = peers.get(id);
        if (link == null) {
            link = new PeerLink(id, self, fabric, control, layout, (seq, frame) -> deliver(id, frame));
            peers.put(id, link);
            link.announce();
        }
        return link;
    }

    private void deliver(int from, byte[] frame) {
        Message message;
        try {
            message = codec.decode(frame);
        } catch (FrameException e) {
            LOG.warn("node {}: dropping a malformed message from node {}: {}", self, from, e.getMessage());
            return;
        }
        Receiver current = receiver;
        if (current != null && !closed) {
            current.onMessage(from, message);
        }
    }

    private void run() {
        try {
            loop();
        } catch (RuntimeException | Error e) {
            LOG.error("node {}: the RDMA transport thread failed; the transport stops", self, e);
            closed = true;
        }
    }

    private void loop() {
        int idle = 0;
        long park = 1_000;
        while (!closed) {
            boolean progress = false;
            for (Runnable command = commands.poll(); command != null; command = commands.poll()) {
                command.run();
                progress = true;
            }
            long now = System.nanoTime();
            for (PeerLink link : peers.values()) {
                progress |= link.poll(now);
                link.drain();
            }
            if (progress) {
                idle = 0;
                park = 1_000;
            } else if (++idle < SPINS_BEFORE_PARKING) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(park);
                park = Math.min(park * 2, MAX_PARK_NANOS);
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        Thread thread = loop;
        if (thread != null) {
            LockSupport.unpark(thread);
            try {
                thread.join(TimeUnit.SECONDS.toMillis(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        control.close();
        peers.values().forEach(PeerLink::close);
        fabric.close();
    }

    /** The control channel's reports, moved onto the transport's thread. */
    private final class Events implements ControlChannel.Listener {
        @Override
        public ControlFrame.Hello helloFor(int peer) {
            PeerLink link = peers.get(peer);
            return new ControlFrame.Hello(self, incarnation, link == null ? 1 : link.firstRetained);
        }

        @Override
        public void onConnected(int peer, boolean framesLost) {
            if (framesLost) {
                command(() -> peer(peer).resendByControl());
            }
        }

        @Override
        public void onFrame(int from, ControlFrame frame) {
            command(() -> peer(from).onFrame(frame));
        }
    }
}
