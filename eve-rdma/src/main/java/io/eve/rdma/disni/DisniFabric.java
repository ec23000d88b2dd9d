package io.eve.rdma.disni;

import com.ibm.disni.RdmaActiveEndpointGroup;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link OneSidedFabric} over DiSNI 2.1 (research/rdma.md sections 2 and 6). Regions are registered on
 * the server endpoint's protection domain, which DiSNI shares per device, so every accepted connection can
 * write them; each peer gets its own registration (its own rkey), and revoking deregisters it, after which
 * the peer's next write completes with {@code IBV_WC_REM_ACCESS_ERR}. DiSNI's {@code connect} can block
 * forever, so it runs under a timeout. Loaded by name only after the probe passed; starts on first use.
 *
 * <p>Thread-safe.
 */
public final class DisniFabric implements OneSidedFabric {
    private static final Logger LOG = LoggerFactory.getLogger(DisniFabric.class);
    private static final int TIMEOUT_MILLIS = 2_000;
    private static final int MAX_WORK_REQUESTS = 256;
    private static final int SIGNAL_INTERVAL = MAX_WORK_REQUESTS / 4;
    private static final int MAX_INLINE = 64;

    private final int self;
    private final InetSocketAddress address;
    private final Map<Integer, IbvMr> registrations = new ConcurrentHashMap<>();
    private final Map<Integer, RingEndpoint> accepted = new ConcurrentHashMap<>();
    private RdmaActiveEndpointGroup<RingEndpoint> group;
    private RdmaServerEndpoint<RingEndpoint> server;
    private ExecutorService connector;
    private long epoch;
    private volatile boolean closed;

    /** A fabric whose connection manager listens on {@code address}, the IPv4 address of an RDMA NIC. */
    public DisniFabric(int self, InetSocketAddress address) {
        this.self = self;
        this.address = address;
    }

    private synchronized void start() {
        if (group != null) {
            return;
        }
        try {
            RdmaActiveEndpointGroup<RingEndpoint> created =
                    new RdmaActiveEndpointGroup<>(TIMEOUT_MILLIS, false, MAX_WORK_REQUESTS, 1, MAX_WORK_REQUESTS * 2);
            created.init((id, serverSide) -> new RingEndpoint(created, id, serverSide));
            server = created.createServerEndpoint();
            server.bind(address, 64);
            group = created;
        } catch (Exception e) {
            throw new FabricException("node " + self + " cannot listen for RDMA connections on " + address, e);
        }
        connector = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "disni-" + self);
            thread.setDaemon(true);
            return thread;
        });
        connector.execute(this::acceptLoop);
        LOG.info("node {}: DiSNI fabric listening on {}", self, address);
    }

    private void acceptLoop() {
        int next = 0;
        while (!closed) {
            try {
                accepted.put(next++, server.accept());
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("node {}: accepting an RDMA connection failed: {}", self, e.toString());
                }
                return;
            }
        }
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
            DisniRemoteRegion region =
                    new DisniRemoteRegion(peer, endpoint, remote, staging, mr, SIGNAL_INTERVAL, MAX_INLINE);
            endpoint.attach(region);
            return region;
        } catch (IOException e) {
            throw new FabricException("registering the staging buffer for node " + peer + " failed", e);
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
