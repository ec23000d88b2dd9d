package io.eve.rdma.disni;

import com.ibm.disni.RdmaServerEndpoint;
import com.ibm.disni.verbs.IbvMr;
import io.eve.rdma.FabricException;
import io.eve.rdma.OneSidedFabric;
import io.eve.rdma.RegionDescriptor;
import io.eve.rdma.RemoteRegion;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link OneSidedFabric} over DiSNI 2.1 (research/rdma.md sections 2 and 6). Regions are registered on
 * the server endpoint's protection domain, which DiSNI shares per device, so every accepted connection can
 * write them; each peer gets its own registration (its own rkey), and revoking deregisters it, after which
 * the peer's next write completes with {@code IBV_WC_REM_ACCESS_ERR}. DiSNI's {@code connect} can block
 * forever, so it runs under a timeout. Loaded by name only after the probe passed; starts (binds) on first
 * use, and tries again on the next use if that failed.
 *
 * <p>Queue pairs and connections come from {@link RingEndpointGroup}: {@value #MAX_INLINE} bytes of inline
 * data asked for (none posted if the device refuses), retry counts of 7, a send queue of {@value
 * #SEND_QUEUE_DEPTH} work requests of which every {@value #SIGNAL_INTERVAL}th is signalled, and one
 * completion queue with room for the send queues of {@code maxPeers} outgoing endpoints. Every call here
 * may block (registration, connect, deregistration): the transport makes them off its polling thread.
 * The accept loop survives failed and empty accepts.
 *
 * <p>Thread-safe.
 */
public final class DisniFabric implements OneSidedFabric {
    private static final Logger LOG = LoggerFactory.getLogger(DisniFabric.class);
    private static final int TIMEOUT_MILLIS = 2_000;
    private static final int SEND_QUEUE_DEPTH = 256;
    private static final int SIGNAL_INTERVAL = SEND_QUEUE_DEPTH / 4;
    private static final int MAX_INLINE = 64;
    private static final int DOORBELL_RECEIVES = 16;
    private static final int DEFAULT_MAX_PEERS = 32;
    private static final long ACCEPT_RETRY_MILLIS = 100;

    private final int self;
    private final InetSocketAddress address;
    private final int maxPeers;
    private final Map<Integer, IbvMr> registrations = new ConcurrentHashMap<>();
    private final Map<Integer, RingEndpoint> accepted = new ConcurrentHashMap<>();
    private final AtomicInteger nextAccepted = new AtomicInteger();
    private final AtomicLong paths = new AtomicLong();
    private volatile IntConsumer doorbells = peer -> {};
    private RingEndpointGroup group;
    private RdmaServerEndpoint<RingEndpoint> server;
    private ExecutorService connector;
    private long epoch;
    private volatile boolean closed;

    /** A fabric whose connection manager listens on {@code address}, the IPv4 address of an RDMA NIC. */
    public DisniFabric(int self, InetSocketAddress address) {
        this(self, address, DEFAULT_MAX_PEERS);
    }

    /** As above, with the completion queue sized for {@code maxPeers} outgoing connections. */
    public DisniFabric(int self, InetSocketAddress address, int maxPeers) {
        if (maxPeers < 1) {
            throw new IllegalArgumentException("maxPeers must be at least 1, got " + maxPeers);
        }
        this.self = self;
        this.address = address;
        this.maxPeers = maxPeers;
    }

    private synchronized void start() {
        if (closed) {
            throw new FabricException("node " + self + ": the DiSNI fabric is closed");
        }
        if (group != null) {
            return;
        }
        RingEndpointGroup created = null;
        try {
            // Both directions of every pair end on this device's one completion queue: room for every
            // outgoing queue pair's whole send queue, and every accepted one's doorbell receives.
            created = new RingEndpointGroup(
                    TIMEOUT_MILLIS,
                    SEND_QUEUE_DEPTH,
                    DOORBELL_RECEIVES,
                    (SEND_QUEUE_DEPTH + 2 * DOORBELL_RECEIVES) * maxPeers,
                    MAX_INLINE);
            RingEndpointGroup owner = created;
            created.init((id, serverSide) -> new RingEndpoint(owner, id, serverSide));
            RdmaServerEndpoint<RingEndpoint> bound = created.createServerEndpoint();
            bound.bind(address, 64);
            server = bound;
            group = created;
        } catch (Exception e) {
            closeGroup(created);
            throw new FabricException(
                    "node " + self + " cannot listen for RDMA connections on " + address + ": " + e, e);
        }
        connector = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "disni-" + self);
            thread.setDaemon(true);
            return thread;
        });
        RdmaServerEndpoint<RingEndpoint> listening = server;
        connector.execute(() -> acceptLoop(listening::accept, () -> closed, this::accepted, self));
        LOG.info("node {}: DiSNI fabric listening on {}", self, address);
    }

    private void closeGroup(RingEndpointGroup created) {
        if (created == null) {
            return;
        }
        try {
            created.close();
        } catch (IOException e) {
            LOG.debug("node {}: closing a group that failed to bind: {}", self, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** DiSNI's blocking accept, as the accept loop calls it. */
    @FunctionalInterface
    interface Acceptor<T> {
        T accept() throws IOException;
    }

    /**
     * Accepts until {@code closed}: a {@code null} endpoint (DiSNI's accept returns one on a spurious
     * wake-up) is skipped, and an {@link IOException} is logged and followed by a short pause, never the end
     * of accepting. Each endpoint goes to {@code onAccepted}.
     */
    static <T> void acceptLoop(
            Acceptor<T> acceptor, java.util.function.BooleanSupplier closed, Consumer<T> onAccepted, int self) {
        while (!closed.getAsBoolean()) {
            T endpoint;
            try {
                endpoint = acceptor.accept();
            } catch (IOException | RuntimeException e) {
                if (closed.getAsBoolean()) {
                    return;
                }
                LOG.warn("node {}: accepting an RDMA connection failed, accepting again: {}", self, e.toString());
                try {
                    Thread.sleep(ACCEPT_RETRY_MILLIS);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
                continue;
            }
            if (endpoint != null) {
                onAccepted.accept(endpoint);
            }
        }
    }

    private void accepted(RingEndpoint endpoint) {
        // Peers reconnect on every new ring generation: forget the connections they closed.
        accepted.values().removeIf(RingEndpoint::isClosed);
        accepted.put(nextAccepted.getAndIncrement(), endpoint);
        try {
            endpoint.receiveDoorbells(peer -> doorbells.accept(peer), paths.incrementAndGet(), DOORBELL_RECEIVES);
        } catch (IOException e) {
            // Without receives the peer's doorbells wait (receiver not ready, retried): its writes still land,
            // and this node finds them on its next poll.
            LOG.warn("node {}: posting doorbell receives on an accepted connection failed: {}", self, e.toString());
        }
    }

    @Override
    public void doorbells(IntConsumer onDoorbell) {
        this.doorbells = java.util.Objects.requireNonNull(onDoorbell, "onDoorbell");
    }

    @Override
    public synchronized RegionDescriptor register(int peer, ByteBuffer region) {
        start();
        revoke(peer);
        try {
            IbvMr mr = server.registerMemory(region).execute().free().getMr();
            registrations.put(peer, mr);
            String locator = address.getAddress().getHostAddress() + ":" + address.getPort();
            return new RegionDescriptor(locator, mr.getAddr(), mr.getLength(), mr.getRkey(), ++epoch);
        } catch (IOException e) {
            throw new FabricException(
                    "registering " + region.capacity() + " bytes for node " + peer
                            + " failed (is the locked-memory limit high enough?): " + e.getMessage(),
                    e);
        }
    }

    @Override
    public synchronized void revoke(int peer) {
        IbvMr mr = registrations.remove(peer);
        if (mr != null && server != null) {
            try {
                server.deregisterMemory(mr);
            } catch (IOException e) {
                throw new FabricException("revoking the registration of node " + peer + " failed", e);
            }
        }
    }

    @Override
    public RemoteRegion open(int peer, RegionDescriptor remote) {
        start();
        RingEndpoint endpoint;
        try {
            endpoint = group.createEndpoint();
        } catch (IOException e) {
            throw new FabricException("cannot create an RDMA endpoint for node " + peer, e);
        }
        connect(peer, endpoint, remote.locator());
        ByteBuffer staging = ByteBuffer.allocateDirect(remote.length()).order(ByteOrder.LITTLE_ENDIAN);
        try {
            IbvMr mr = endpoint.registerMemory(staging).execute().free().getMr();
            DisniRemoteRegion region = new DisniRemoteRegion(
                    self,
                    paths.incrementAndGet(),
                    peer,
                    endpoint,
                    remote,
                    staging,
                    mr,
                    SIGNAL_INTERVAL,
                    endpoint.maxInline());
            endpoint.attach(region);
            return region;
        } catch (IOException e) {
            closeQuietly(endpoint);
            throw new FabricException("registering the staging buffer for node " + peer + " failed: " + e, e);
        }
    }

    private void connect(int peer, RingEndpoint endpoint, String locator) {
        int colon = locator.lastIndexOf(':');
        InetSocketAddress target =
                new InetSocketAddress(locator.substring(0, colon), Integer.parseInt(locator.substring(colon + 1)));
        Future<?> connecting = connector.submit(() -> {
            endpoint.connect(target, TIMEOUT_MILLIS);
            return null;
        });
        try {
            connecting.get(TIMEOUT_MILLIS * 2L, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            connecting.cancel(true);
            throw new FabricException("interrupted while connecting to node " + peer, e);
        } catch (ExecutionException | TimeoutException e) {
            connecting.cancel(true);
            closeQuietly(endpoint);
            throw new FabricException("cannot connect to node " + peer + " at " + target + ": " + e, e);
        }
    }

    private static void closeQuietly(RingEndpoint endpoint) {
        try {
            endpoint.close();
        } catch (IOException e) {
            LOG.debug("closing an endpoint that failed to connect: {}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        for (Integer peer : registrations.keySet().toArray(new Integer[0])) {
            revoke(peer);
        }
        accepted.values().forEach(DisniFabric::closeQuietly);
        if (group == null) {
            return;
        }
        try {
            server.close();
            synchronized (server) {
                server.notifyAll();
            }
            group.close();
        } catch (IOException e) {
            LOG.warn("node {}: closing the DiSNI fabric: {}", self, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        connector.shutdownNow();
    }
}
