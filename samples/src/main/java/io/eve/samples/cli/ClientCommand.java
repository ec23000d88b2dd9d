package io.eve.samples.cli;

import io.eve.Reply;
import io.eve.client.ClientConfig;
import io.eve.client.EveClient;
import io.eve.config.ClusterConfig;
import io.eve.samples.kv.KeyValueStore;
import io.eve.samples.kv.KvRequest;
import io.eve.server.security.Bundles;
import io.eve.transport.netty.ConnectionLossLog;
import io.eve.transport.netty.NettyTransport;
import io.eve.transport.netty.tls.PeerIdentity;
import io.eve.transport.netty.tls.TlsIdentity;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** Talks to a cluster: single requests, or a load with progress and a latency summary. */
@Command(
        name = "client",
        mixinStandardHelpOptions = true,
        description = "Send requests to a key-value cluster.",
        subcommands = {ClientCommand.Get.class, ClientCommand.Put.class, LoadCommand.class})
final class ClientCommand {
    @Option(
            names = "--config",
            required = true,
            description = "The cluster configuration file.",
            scope = picocli.CommandLine.ScopeType.INHERIT)
    Path config;

    @Option(
            names = "--id",
            description = "This client's id (default: random); ids must not be reused by clients that overlap.",
            scope = picocli.CommandLine.ScopeType.INHERIT)
    Integer id;

    /**
     * The --id given, or a random one: with tls.enabled, from the ids the client certificate grants (leaving
     * room for the consecutive ids of a load's clients).
     */
    /** The client identities this process loaded, one per folder: a load's clients share its TLS context. */
    private static final Map<Path, TlsIdentity> IDENTITIES = new java.util.concurrent.ConcurrentHashMap<>();

    int clientId() {
        if (id != null) {
            return id;
        }
        ClusterConfig cluster = ClusterConfig.load(config);
        if (cluster.tls().enabled()) {
            Bundles.prepareDemo(cluster);
            PeerIdentity granted =
                    TlsIdentity.loadClient(cluster.tls().clientFolder()).identity();
            return ThreadLocalRandom.current().nextInt(granted.firstClient(), granted.lastClient() - 100_000);
        }
        return ThreadLocalRandom.current().nextInt(1_000_000, Integer.MAX_VALUE - 100_000);
    }

    /** A client of the cluster in {@code config}, with node id {@code clientId}. */
    static EveClient connect(Path config, int clientId) {
        return connect(config, clientId, new ConnectionLossLog());
    }

    /** The same, reporting lost connections to {@code losses}, which the clients of one load share. */
    static EveClient connect(Path config, int clientId, ConnectionLossLog losses) {
        ClusterConfig cluster = ClusterConfig.load(config);
        Map<Integer, InetSocketAddress> peers = new HashMap<>();
        for (var node : cluster.nodes()) {
            peers.put(node.id(), new InetSocketAddress(node.host(), node.port()));
        }
        NettyTransport.Builder builder = NettyTransport.builder()
                .self(clientId)
                .peers(peers)
                .maxFrameBytes(cluster.maxFrameBytes())
                .connectionLossLog(losses);
        if (cluster.tls().enabled()) {
            // The client's certificate must grant the id it names; replicas refuse the connection otherwise.
            TlsIdentity identity = IDENTITIES.computeIfAbsent(cluster.tls().clientFolder(), folder -> {
                Bundles.prepareDemo(cluster);
                return TlsIdentity.loadClient(folder);
            });
            if (!identity.identity().allows(clientId)) {
                throw new IllegalArgumentException("client id " + clientId + " is not granted by the certificate of "
                        + identity.identity() + " in " + identity.folder());
            }
            builder.tls(identity);
        }
        NettyTransport transport = builder.build();
        return new EveClient(transport, ClientConfig.forCluster(cluster, Duration.ofSeconds(15)));
    }

    @Command(
            name = "get",
            mixinStandardHelpOptions = true,
            description = "Read one object (answered by every replica alike without ordering, Eve §6;"
                    + " ordered if their answers differ).")
    static final class Get implements Callable<Integer> {
        @ParentCommand
        ClientCommand parent;

        @Parameters(index = "0", description = "The object id.")
        long object;

        @Option(names = "--ordered", description = "Send the read as an ordered request.")
        boolean ordered;

        @Override
        public Integer call() throws Exception {
            try (EveClient client = connect(parent.config, parent.clientId())) {
                byte[] request = KvRequest.encode(new KvRequest.Read(object));
                Reply reply =
                        ordered ? client.call(request) : client.read(request).get(30, TimeUnit.SECONDS);
                if (reply.error()) {
                    System.out.println("error: " + reply.errorText());
                    return 1;
                }
                byte[] value = reply.payload();
                System.out.printf(
                        "object %d: %d bytes, starting %s%n",
                        object, value.length, HexFormat.of().formatHex(value, 0, Math.min(16, value.length)));
                return 0;
            }
        }
    }

    @Command(name = "put", mixinStandardHelpOptions = true, description = "Update one object from a seed.")
    static final class Put implements Callable<Integer> {
        @ParentCommand
        ClientCommand parent;

        @Parameters(index = "0", description = "The object id.")
        long object;

        @Parameters(index = "1", description = "The seed its new contents derive from.")
        long seed;

        @Override
        public Integer call() {
            try (EveClient client = connect(parent.config, parent.clientId())) {
                Reply reply = client.call(KvRequest.encode(new KvRequest.SeededUpdate(object, seed)));
                if (reply.error()) {
                    System.out.println("error: " + reply.errorText());
                    return 1;
                }
                System.out.printf("object %d: now at version %d%n", object, KeyValueStore.versionOf(reply.payload()));
                return 0;
            }
        }
    }
}
