package io.eve.rdma.bench;

import io.eve.client.ClientConfig;
import io.eve.client.EveClient;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.protocol.Message;
import io.eve.rdma.RdmaTransport;
import io.eve.rdma.memory.InMemoryFabric;
import io.eve.transport.LocalNetwork;
import io.eve.transport.RoutedTransport;
import io.eve.transport.Transport;
import io.eve.transport.netty.NettyTransport;
import io.eve.verify.primarybackup.CounterApp;
import io.eve.verify.primarybackup.PrimaryBackupConfig;
import io.eve.verify.primarybackup.PrimaryBackupRoles;
import io.eve.verify.quorum.Evidence;
import io.eve.verify.quorum.QuorumConfig;
import io.eve.verify.quorum.QuorumRoles;
import io.eve.verify.runtime.HostedRoles;
import io.eve.verify.runtime.ReplicaRuntime;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * One point's in-process cluster for {@link RingClusterBenchmark}: the replicas (primary-backup or crash),
 * their transport to each other (the path measured), the clients on a {@link LocalNetwork} of their own,
 * and counts of what the replicas sent each other. Built on the caller's thread; closed once.
 */
final class BenchCluster implements AutoCloseable {
    private final RingClusterBenchmark.Profile profile;
    private final RingClusterBenchmark.Path path;
    private final LocalNetwork clientNetwork = new LocalNetwork();
    private final LocalNetwork replicaNetwork = new LocalNetwork();
    private final InMemoryFabric fabric = new InMemoryFabric();
    private final Map<Integer, InetSocketAddress> addresses = new ConcurrentHashMap<>();
    private final List<RdmaTransport> rings = new ArrayList<>();
    private final List<ReplicaRuntime> replicas = new ArrayList<>();
    private final List<EveClient> clients = new ArrayList<>();
    private final List<Throwable> failures = new CopyOnWriteArrayList<>();
    private final Map<String, AtomicLong> sent = new ConcurrentHashMap<>();

    BenchCluster(RingClusterBenchmark.Profile profile, RingClusterBenchmark.Path path) {
        this.profile = profile;
        this.path = path;
        Set<Integer> ids = IntStream.range(0, profile.processes).boxed().collect(Collectors.toSet());
        for (int node = 0; node < profile.processes; node++) {
            Transport transport = new RoutedTransport(counted(replicaTransport(node)), ids, clientNetwork.join(node));
            ReplicaRuntime replica = ReplicaRuntime.builder()
                    .roles(roles(node))
                    .transport(transport)
                    .application(new CounterApp())
                    .mixer(KeyConflictMixer.unbounded())
                    .executorThreads(2)
                    .onFailure(failures::add)
                    .build();
            replicas.add(replica);
            replica.start();
        }
        int[] executing = profile == RingClusterBenchmark.Profile.CRASH
                ? QuorumConfig.crash(new int[] {0, 1, 2}, 0).executionReplicas()
                : new int[] {0, 1};
        for (int c = 0; c < RingClusterBenchmark.CLIENTS; c++) {
            ClientConfig config =
                    ClientConfig.of(executing).withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(60));
            if (profile == RingClusterBenchmark.Profile.CRASH) {
                config = config.withQuorumReplies(
                        QuorumConfig.crash(new int[] {0, 1, 2}, 0).responseQuorum());
            }
            clients.add(new EveClient(clientNetwork.join(100 + c), config));
        }
    }

    private HostedRoles.Factory roles(int node) {
        if (profile == RingClusterBenchmark.Profile.PRIMARY_BACKUP) {
            return PrimaryBackupRoles.of(PrimaryBackupConfig.of(0, 1, node));
        }
        QuorumConfig config = QuorumConfig.crash(new int[] {0, 1, 2}, node).withTimeouts(1_000_000_000L, 50_000_000L);
        return QuorumRoles.of(config, Evidence.PLAIN);
    }

    private Transport replicaTransport(int node) {
        return switch (path) {
            case LOCAL -> replicaNetwork.join(node);
            case NETTY ->
                published(
                        node,
                        NettyTransport.builder()
                                .self(node)
                                .listen(new InetSocketAddress("127.0.0.1", 0))
                                .peers(addresses::get)
                                .build());
            case RING, POLL -> {
                RdmaTransport transport = RdmaTransport.builder()
                        .self(node)
                        .listen(new InetSocketAddress("127.0.0.1", 0))
                        .peers(addresses::get)
                        .fabric(fabric.node(node))
                        .maxIdleParkMicros(Long.getLong("bench.maxIdleParkMicros", 1_000))
                        .doorbells(path == RingClusterBenchmark.Path.RING)
                        .idleSpins(
                                Integer.getInteger("bench.idleSpins", 100), Integer.getInteger("bench.idleYields", 20))
                        .build();
                rings.add(transport);
                yield published(node, transport);
            }
        };
    }

    /** Counts, by message type, what the replicas send each other. */
    private Transport counted(Transport transport) {
        return new Transport() {
            @Override
            public int self() {
                return transport.self();
            }

            @Override
            public void start(Receiver receiver) {
                transport.start(receiver);
            }

            @Override
            public void send(int to, Message message) {
                sent.computeIfAbsent(message.getClass().getSimpleName(), type -> new AtomicLong())
                        .incrementAndGet();
                transport.send(to, message);
            }

            @Override
            public void close() {
                transport.close();
            }
        };
    }

    /** Messages the replicas sent each other so far, by type. */
    Map<String, Long> sentByType() {
        return sent.entrySet().stream()
                .collect(Collectors.toMap(
                        Map.Entry::getKey, entry -> entry.getValue().get()));
    }

    /** A transport that publishes where it listens once started, so that its peers can dial it. */
    private Transport published(int node, Transport transport) {
        return new Transport() {
            @Override
            public int self() {
                return node;
            }

            @Override
            public void start(Receiver receiver) {
                transport.start(receiver);
                addresses.put(node, boundAddress(transport));
            }

            @Override
            public void send(int to, Message message) {
                transport.send(to, message);
            }

            @Override
            public void close() {
                transport.close();
            }
        };
    }

    private static InetSocketAddress boundAddress(Transport transport) {
        return transport instanceof NettyTransport netty
                ? netty.boundAddress()
                : ((RdmaTransport) transport).boundAddress();
    }

    List<EveClient> clients() {
        return clients;
    }

    /** Messages sent through rings, by the control channel, and degrades, over every ring transport. */
    long[] ringCounts() {
        long[] counts = new long[3];
        for (RdmaTransport transport : rings) {
            for (RdmaTransport.PeerStatus status : transport.status()) {
                counts[0] += status.sentByRing();
                counts[1] += status.sentByControl();
                counts[2] += status.degrades();
            }
        }
        return counts;
    }

    long highestView() {
        return replicas.stream()
                .mapToLong(replica -> replica.status().view())
                .max()
                .orElse(0);
    }

    @Override
    public void close() {
        clients.forEach(EveClient::close);
        replicas.forEach(ReplicaRuntime::close);
        clientNetwork.close();
        replicaNetwork.close();
        fabric.close();
        if (!failures.isEmpty()) {
            throw new IllegalStateException("a replica failed: " + failures.get(0), failures.get(0));
        }
    }
}
