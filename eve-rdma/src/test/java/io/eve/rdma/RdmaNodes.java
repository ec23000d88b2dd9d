package io.eve.rdma;

import io.eve.protocol.Message;
import io.eve.transport.Transport;
import io.eve.transport.netty.tls.TlsIdentity;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * Builds RDMA transports whose control channels listen on 127.0.0.1 ephemeral ports and find each other, on
 * plain TCP or under mutual TLS with each node's identity.
 */
final class RdmaNodes {
    private final Map<Integer, InetSocketAddress> addresses = new ConcurrentHashMap<>();
    private final Map<Integer, RdmaTransport> transports = new ConcurrentHashMap<>();
    private final IntFunction<OneSidedFabric> fabrics;
    private final int ringBytes;
    private final int maxEntryPayload;
    private final Consumer<RdmaTransport.Builder> settings;
    /** Each node's TLS identity, or {@code null} for plain TCP. */
    private final IntFunction<TlsIdentity> identities;

    RdmaNodes(IntFunction<OneSidedFabric> fabrics) {
        this(fabrics, 1 << 16, 1024);
    }

    RdmaNodes(IntFunction<OneSidedFabric> fabrics, int ringBytes, int maxEntryPayload) {
        this(fabrics, ringBytes, maxEntryPayload, builder -> {});
    }

    /** With {@code settings} applied to every node's builder (timeouts, limits). */
    RdmaNodes(
            IntFunction<OneSidedFabric> fabrics,
            int ringBytes,
            int maxEntryPayload,
            Consumer<RdmaTransport.Builder> settings) {
        this(fabrics, ringBytes, maxEntryPayload, settings, null);
    }

    private RdmaNodes(
            IntFunction<OneSidedFabric> fabrics,
            int ringBytes,
            int maxEntryPayload,
            Consumer<RdmaTransport.Builder> settings,
            IntFunction<TlsIdentity> identities) {
        this.fabrics = fabrics;
        this.ringBytes = ringBytes;
        this.maxEntryPayload = maxEntryPayload;
        this.settings = settings;
        this.identities = identities;
    }

    /** Nodes whose control channels run mutual TLS, each with its identity from {@code bundle}. */
    static RdmaNodes withTls(IntFunction<OneSidedFabric> fabrics, TlsBundle bundle) {
        return new RdmaNodes(fabrics, 1 << 16, 1024, builder -> {}, bundle::node);
    }

    RdmaTransport transport(int id) {
        return transports.get(id);
    }

    /**
     * Fixes the port node {@code id} will listen on and publishes it at once, before the node starts, as a
     * configured cluster does: peers then dial an address where nobody listens yet.
     */
    void reserve(int id) throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (ServerSocket probe = new ServerSocket(0, 1, loopback)) {
            addresses.put(id, new InetSocketAddress(loopback, probe.getLocalPort()));
        }
    }

    /** A transport that publishes its control address when started, and withdraws it when closed. */
    Transport node(int id) {
        RdmaTransport.Builder builder = RdmaTransport.builder()
                .self(id)
                .listen(addresses.getOrDefault(id, new InetSocketAddress("127.0.0.1", 0)))
                .peers(addresses::get)
                .fabric(fabrics.apply(id))
                .ringBytes(ringBytes)
                .maxEntryPayload(maxEntryPayload);
        settings.accept(builder);
        if (identities != null) {
            builder.tls(identities.apply(id));
        }
        RdmaTransport transport = builder.build();
        transports.put(id, transport);
        return new Transport() {
            @Override
            public int self() {
                return id;
            }

            @Override
            public void start(Receiver receiver) {
                transport.start(receiver);
                addresses.put(id, transport.boundAddress());
            }

            @Override
            public void send(int to, Message message) {
                transport.send(to, message);
            }

            @Override
            public void close() {
                addresses.remove(id);
                transport.close();
            }
        };
    }
}
