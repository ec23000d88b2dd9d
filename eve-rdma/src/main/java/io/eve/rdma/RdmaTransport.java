package io.eve.rdma;

import io.eve.protocol.Message;
import io.eve.rdma.control.ControlChannel;
import io.eve.rdma.control.ControlFrame;
import io.eve.rdma.ring.RingLayout;
import io.eve.transport.Transport;
import io.eve.transport.netty.tls.TlsIdentity;
import io.eve.transport.wire.FrameCodec;
import io.eve.transport.wire.FrameException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
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
 * <p>A failure of the fabric never stops the transport: it degrades only the pair it concerns to the
 * control channel (logged, counted in {@code eve.rdma.degrades}, shown by {@link #status()}), and the
 * pair returns to rings once a re-probe works ({@code eve.rdma.upgrades}); see {@link PeerLink}.
 *
 * <p>With {@link Builder#tls} the control channel runs the cluster's mutual TLS 1.3: descriptors (the remote
 * keys of our rings), acknowledgements and the slow path go only to and from connections that proved the
 * node they name; refused ones are counted in {@code eve.rdma.control.refused}. The ring writes themselves
 * are not under TLS (docs/rdma.md, "The control channel").
 *
 * <p>Thread-safe. One thread per node ("rdma-node-N") polls the rings, moves messages onto paths and
 * delivers to the receiver, one message at a time; when idle it spins briefly, yields, arms its doorbells
 * (peers that then write into its rings ring it), then parks for pauses growing to {@link
 * Builder#maxIdleParkMicros} ({@link BackoffIdle}). Blocking fabric calls run on "rdma-verbs-N" threads,
 * never on it.
 */
public final class RdmaTransport implements Transport {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaTransport.class);
    private static final long MIN_PARK_NANOS = 1_000;

    private final int self;
    private final OneSidedFabric fabric;
    private final RingLayout layout;
    private final FrameCodec codec;
    private final ControlChannel control;
    private final long incarnation = new SecureRandom().nextLong() | 1;
    private final PeerLink.Settings settings;
    private final long maxParkNanos;
    private final boolean doorbells;
    private final int idleSpins;
    private final int idleYields;
    private final AtomicLong doorbellsReceived = new AtomicLong();
    private volatile long sleeps;
    private final MeterRegistry meters;
    private final ExecutorService verbs;
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
        this.settings = new PeerLink.Settings(
                TimeUnit.MILLISECONDS.toNanos(builder.livenessMillis),
                builder.creditQueueLimit,
                TimeUnit.MILLISECONDS.toNanos(builder.firstReprobeMillis),
                TimeUnit.MILLISECONDS.toNanos(builder.maxReprobeMillis),
                TimeUnit.MILLISECONDS.toNanos(builder.connectTimeoutMillis));
        this.maxParkNanos = TimeUnit.MICROSECONDS.toNanos(builder.maxIdleParkMicros);
        this.doorbells = builder.doorbells;
        this.idleSpins = builder.idleSpins;
        this.idleYields = builder.idleYields;
        this.meters = builder.meters == null ? new SimpleMeterRegistry() : builder.meters;
        AtomicInteger threads = new AtomicInteger();
        this.verbs = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "rdma-verbs-" + builder.self + "-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        this.control = new ControlChannel(
                builder.self, builder.listen, builder.peers, builder.maxFrameBytes + 64, new Events(), builder.tls);
    }

    /**
     * A builder with the defaults: 1 MiB rings, 4 KiB entries, 5 s liveness, 5 s to connect a generation,
     * re-probes from 200 ms to 30 s.
     */
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
        private long livenessMillis = 5_000;
        private int creditQueueLimit = 4_096;
        private long firstReprobeMillis = 200;
        private long maxReprobeMillis = 30_000;
        private long connectTimeoutMillis = 5_000;
        private long maxIdleParkMicros = 1_000;
        private int idleSpins = 100;
        private int idleYields = 20;
        private boolean doorbells = true;
        private MeterRegistry meters;
        private TlsIdentity tls;

        private Builder() {}

        /**
         * Runs mutual TLS 1.3 with this node identity on every control connection (peers must hold
         * certificates of the same CA). Default: plain TCP.
         */
        public Builder tls(TlsIdentity identity) {
            this.tls = Objects.requireNonNull(identity, "identity");
            return this;
        }

        /**
         * How long a pair with rings open may go without progress (no acknowledgement while a message is
         * unacknowledged, or no ring credit while one waits for it) before it degrades to the control channel
         * (default 5000 ms).
         */
        public Builder livenessMillis(long millis) {
            this.livenessMillis = positive(millis, "livenessMillis");
            return this;
        }

        /**
         * How many messages may wait for ring credit (default 4096); beyond it the oldest waiting ones go by
         * the control channel while the rings stay open: a burst is not a fault. Nothing is dropped.
         */
        public Builder creditQueueLimit(int messages) {
            this.creditQueueLimit = (int) positive(messages, "creditQueueLimit");
            return this;
        }

        /** The pause before a degraded pair first tries rings again (default 200 ms); it doubles per failure. */
        public Builder firstReprobeMillis(long millis) {
            this.firstReprobeMillis = positive(millis, "firstReprobeMillis");
            return this;
        }

        /**
         * How long a generation of a pair's rings may stay connecting (registering our ring, waiting for the
         * peer's descriptor, connecting our write path) before it is abandoned and the pair re-probes later
         * (default 5000 ms). It doubles with each consecutive expiry, up to {@link #maxReprobeMillis}, and
         * starts over once rings open.
         */
        public Builder connectTimeoutMillis(long millis) {
            this.connectTimeoutMillis = positive(millis, "connectTimeoutMillis");
            return this;
        }

        /** The longest pause between re-probes of a degraded pair (default 30000 ms). */
        public Builder maxReprobeMillis(long millis) {
            this.maxReprobeMillis = positive(millis, "maxReprobeMillis");
            return this;
        }

        /**
         * The longest park of an idle transport thread, in microseconds (default 1000): the delay an idle
         * pair's first ring entry may wait to be seen, against the CPU an idle transport burns.
         */
        public Builder maxIdleParkMicros(long micros) {
            this.maxIdleParkMicros = positive(micros, "maxIdleParkMicros");
            return this;
        }

        /**
         * How many passes an idle transport thread spins, then yields, before it arms its doorbells and parks
         * (default 100 and 20): spinning finds the next message sooner, at the price of a core the other
         * threads of the process do not get meanwhile.
         */
        public Builder idleSpins(int spins, int yields) {
            if (spins < 0 || yields < 0) {
                throw new IllegalArgumentException(
                        "idle spins and yields must not be negative, got " + spins + " and " + yields);
            }
            this.idleSpins = spins;
            this.idleYields = yields;
            return this;
        }

        /**
         * Whether an idle transport thread arms doorbells before it parks (default on): peers that write into
         * its rings then ring it ({@link RemoteRegion#doorbell()}, a write with immediate data) and it wakes at
         * once; off, a ring entry waits until the park ends (up to {@link #maxIdleParkMicros}).
         */
        public Builder doorbells(boolean on) {
            this.doorbells = on;
            return this;
        }

        /** Where the transport's meters go (default a registry of its own, which nothing exports). */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meters = Objects.requireNonNull(registry, "registry");
            return this;
        }

        private static long positive(long value, String name) {
            if (value < 1) {
                throw new IllegalArgumentException(name + " must be positive, got " + value);
            }
            return value;
        }

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
            if (maxReprobeMillis < firstReprobeMillis) {
                throw new IllegalArgumentException("maxReprobeMillis (" + maxReprobeMillis
                        + ") must not be below firstReprobeMillis (" + firstReprobeMillis + ")");
            }
            if (tls != null && !(tls.identity().isNode() && tls.identity().node() == self)) {
                throw new IllegalArgumentException("the control channel of node " + self
                        + " needs that node's TLS identity, got " + tls.identity());
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
        fabric.doorbells(this::onDoorbell);
        for (ControlChannel.Refusal reason : ControlChannel.Refusal.values()) {
            FunctionCounter.builder("eve.rdma.control.refused", control, channel -> channel.refused(reason))
                    .description("control connections refused: a failed TLS handshake or record, or a peer whose"
                            + " certificate is not the node it named")
                    .tag("node", Integer.toString(self))
                    .tag("reason", reason.name().toLowerCase(Locale.ROOT))
                    .register(meters);
        }
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
        onPeer(to, link -> link.enqueue(frame, System.nanoTime()));
    }

    /** What the transport knows of the path to one peer, for {@code /status} and operators. */
    public record PeerStatus(
            int peer,
            String path,
            long generation,
            long sentByRing,
            long sentByControl,
            long degrades,
            long upgrades,
            long connectTimeouts,
            String lastDegradeReason,
            long refusedImpostors,
            long failedTlsDials) {}

    /**
     * The path to every peer this node has talked to: {@code ring}, {@code connecting} (rings being set
     * up, messages on the control channel meanwhile) or {@code control} (degraded; re-probing), with its
     * ring generation, counts (a generation abandoned by the connect timeout counts in {@code connectTimeouts}
     * and, as the pair then moves to the control channel, in {@code degrades}), why it last degraded
     * ({@code null} if it never did), and with TLS the control connections refused for claiming to be the
     * peer without its certificate and the dials of the peer whose TLS handshake failed.
     */
    public List<PeerStatus> status() {
        List<PeerStatus> all = new ArrayList<>();
        for (PeerLink link : peers.values()) {
            all.add(new PeerStatus(
                    link.id,
                    pathName(link.path),
                    link.generation,
                    link.sentByRing,
                    link.sentByControl,
                    link.degrades,
                    link.upgrades,
                    link.connectTimeouts,
                    link.lastDegradeReason,
                    control.refusedImpostors(link.id),
                    control.failedTlsDials(link.id)));
        }
        all.sort(java.util.Comparator.comparingInt(PeerStatus::peer));
        return all;
    }

    private static String pathName(PeerLink.PathState state) {
        return switch (state) {
            case OPEN -> "ring";
            case CONNECTING -> "connecting";
            case DEGRADED -> "control";
        };
    }

    /** How many times the pair with {@code peer} degraded to the control channel. */
    public long degrades(int peer) {
        PeerLink link = peers.get(peer);
        return link == null ? 0 : link.degrades;
    }

    /**
     * How many times messages to {@code peer} overflowed the credit-wait queue and went by the control channel
     * while the rings stayed open (a burst larger than the ring plus {@code creditQueueLimit}).
     */
    public long spills(int peer) {
        PeerLink link = peers.get(peer);
        return link == null ? 0 : link.spills;
    }

    /**
     * How many generations of the pair with {@code peer} were abandoned because they did not open within the
     * connect timeout ({@link Builder#connectTimeoutMillis}).
     */
    public long connectTimeouts(int peer) {
        PeerLink link = peers.get(peer);
        return link == null ? 0 : link.connectTimeouts;
    }

    /** How many times the pair with {@code peer} returned to rings after degrading. */
    public long upgrades(int peer) {
        PeerLink link = peers.get(peer);
        return link == null ? 0 : link.upgrades;
    }

    /** Messages this node sent to {@code peer} through the ring and through the control channel. */
    public long[] sentCounts(int peer) {
        PeerLink link = peers.get(peer);
        return link == null ? new long[2] : new long[] {link.sentByRing, link.sentByControl};
    }

    /** Doorbells this node rang at {@code peer} (its thread had gone to sleep with our entries unread). */
    public long doorbellsRung(int peer) {
        PeerLink link = peers.get(peer);
        return link == null ? 0 : link.doorbellsRung;
    }

    /** How many times this node's thread armed its doorbells to go to sleep (each idle spell, at least once). */
    public long sleeps() {
        return sleeps;
    }

    /** Doorbells peers rang at this node. */
    public long doorbellsReceived() {
        return doorbellsReceived.get();
    }

    /** Called by the fabric, on its thread, when a peer rang: wakes the transport's thread. */
    private void onDoorbell(int peer) {
        doorbellsReceived.incrementAndGet();
        Thread thread = loop;
        if (thread != null) {
            LockSupport.unpark(thread);
        }
    }

    /**
     * How many control connections this node refused for {@code reason}, of all peers and of connections
     * that never named one (always 0 without TLS).
     */
    public long refusedControlConnections(ControlChannel.Refusal reason) {
        return control.refused(reason);
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

    /** Runs {@code action} on the transport's thread; if it throws, only that peer's pair degrades. */
    private void onPeer(int id, Consumer<PeerLink> action) {
        command(() -> {
            PeerLink link = peer(id);
            try {
                action.accept(link);
            } catch (RuntimeException e) {
                LOG.error("node {}: handling node {} failed", self, id, e);
                link.degrade("handling node " + id + " failed: " + e, System.nanoTime());
            }
        });
    }

    private PeerLink peer(int id) {
        PeerLink link = peers.get(id);
        if (link == null) {
            Counter degraded = Counter.builder("eve.rdma.degrades")
                    .description("times a pair moved from RDMA rings to the control channel")
                    .tag("node", Integer.toString(self))
                    .tag("peer", Integer.toString(id))
                    .register(meters);
            Counter upgraded = Counter.builder("eve.rdma.upgrades")
                    .description("times a degraded pair returned to RDMA rings")
                    .tag("node", Integer.toString(self))
                    .tag("peer", Integer.toString(id))
                    .register(meters);
            Counter timedOut = Counter.builder("eve.rdma.connect.timeouts")
                    .description("times a generation of the pair's rings did not open within the connect timeout")
                    .tag("node", Integer.toString(self))
                    .tag("peer", Integer.toString(id))
                    .register(meters);
            link = new PeerLink(
                    id,
                    self,
                    fabric,
                    control,
                    layout,
                    settings,
                    verbs,
                    this::command,
                    (seq, frame) -> deliver(id, frame),
                    degraded::increment,
                    upgraded::increment,
                    timedOut::increment);
            PeerLink created = link;
            Gauge.builder("eve.rdma.ring.open", () -> created.ringOpen ? 1 : 0)
                    .description("1 while messages to the peer go through RDMA rings, else 0")
                    .tag("node", Integer.toString(self))
                    .tag("peer", Integer.toString(id))
                    .register(meters);
            peers.put(id, link);
            link.start();
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
            try {
                current.onMessage(from, message);
            } catch (RuntimeException e) {
                LOG.error("node {}: the receiver failed on a message from node {}", self, from, e);
            }
        }
    }

    /**
     * Passes until closed. Before the first park of an idle spell (and again after a doorbell that brought no
     * work) it arms every open pair's doorbell with a new sleep epoch and takes one last look: an entry that
     * landed before the peer read our sleep record is found by that look, any later one makes the peer ring.
     * Armed, it parks for the longest pause at once (a doorbell, a send or a control frame wakes it). The
     * first pass with work disarms.
     */
    private void run() {
        BackoffIdle idle = new BackoffIdle(idleSpins, idleYields, MIN_PARK_NANOS, maxParkNanos);
        long epoch = 0;
        long doorbellsAtArm = 0;
        boolean armed = false;
        while (!closed) {
            try {
                boolean work = pass();
                if (!work && doorbells && idle.parksNext()) {
                    long rung = doorbellsReceived.get();
                    if (!armed || rung != doorbellsAtArm) {
                        doorbellsAtArm = rung;
                        armed = true;
                        epoch++;
                        sleeps = epoch;
                        for (PeerLink link : peers.values()) {
                            link.arm(epoch);
                        }
                        VarHandle.fullFence();
                        work = pass();
                    }
                }
                if (work && armed) {
                    armed = false;
                    peers.values().forEach(PeerLink::disarm);
                }
                idle.idle(work, armed);
            } catch (RuntimeException e) {
                // A bug rather than a fabric error (those degrade their pair where they happen): keep serving.
                LOG.error("node {}: the RDMA transport thread caught an error; it goes on", self, e);
            }
        }
    }

    /** One pass over the commands and every peer; whether it did anything. */
    private boolean pass() {
        boolean progress = false;
        for (Runnable command = commands.poll(); command != null; command = commands.poll()) {
            try {
                command.run();
            } catch (RuntimeException e) {
                LOG.error("node {}: an RDMA transport command failed", self, e);
            }
            progress = true;
        }
        long now = System.nanoTime();
        for (PeerLink link : peers.values()) {
            try {
                progress |= link.poll(now);
                link.drain(now);
            } catch (RuntimeException e) {
                LOG.error("node {}: serving node {} failed", self, link.id, e);
                link.degrade("serving node " + link.id + " failed: " + e, now);
            }
        }
        return progress;
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
        verbs.shutdown();
        try {
            if (!verbs.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warn("node {}: RDMA fabric calls still running after 5 s; closing anyway", self);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
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
                onPeer(peer, PeerLink::resendByControl);
            }
        }

        @Override
        public void onFrame(int from, ControlFrame frame) {
            onPeer(from, link -> link.onFrame(frame, System.nanoTime()));
        }
    }
}
