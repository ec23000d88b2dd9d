package io.eve.bench.deployed;

import com.fasterxml.jackson.databind.SerializationFeature;
import io.eve.bench.harness.Json;
import io.eve.bench.ratis.RatisProcesses;
import io.eve.client.ClientConfig;
import io.eve.client.EveClient;
import io.eve.config.ClusterConfig;
import io.eve.server.launch.ProcessDefaults;
import io.eve.transport.netty.NettyTransport;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.HdrHistogram.Histogram;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The load generator of the deployed benchmark, in its own JVM: drives an Eve cluster (through {@link
 * EveClient}'s asynchronous {@code submit}) or a Ratis group (through {@code RaftClient.async()}) with an
 * {@link AsyncClosedLoop}, warms up, then measures. It tells the benchmark where the measured window lies
 * on stdout: a line {@value #MEASURE_START} when it begins, {@value #MEASURE_END} when it ends, then
 * {@value #RESULT} followed by the {@link LoadResult} as JSON. Exit code 0 when it measured, 1 when it
 * could not.
 */
@Command(name = "deployed-load", mixinStandardHelpOptions = true, description = "The deployed benchmark's load JVM.")
public final class DeployedLoad implements Callable<Integer> {
    /** The line that opens the measured window. */
    public static final String MEASURE_START = "MEASURE-START";
    /** The line that closes it. */
    public static final String MEASURE_END = "MEASURE-END";
    /** The line saying every connection had a request committed; the warm-up begins. */
    public static final String READY = "READY";
    /** The prefix of the result line. */
    public static final String RESULT = "RESULT ";

    private static final Duration READY_LIMIT = Duration.ofSeconds(120);

    @Option(names = "--target", required = true, description = "eve, unreplicated, ratis-grpc or ratis-netty.")
    String target;

    @Option(names = "--server", description = "host:port of the unreplicated server (--target unreplicated).")
    String server;

    @Option(names = "--config", description = "The Eve cluster's configuration (--target eve).")
    Path config;

    @Option(names = "--ratis-peers", description = "id@host:port,... (--target ratis-*).")
    String ratisPeers;

    @Option(names = "--ratis-group", description = "The Ratis group's UUID.")
    String ratisGroup;

    @Option(
            names = "--connections",
            defaultValue = "4",
            description = "Driver threads, each with its share of the requests in flight (Ratis: a client each).")
    int connections;

    @Option(
            names = "--eve-clients",
            defaultValue = "1",
            description = "EveClient objects (each one transport, one connection per replica) the driver threads"
                    + " share, round robin (default 1: one per process, as an application would).")
    int eveClients;

    @Option(
            names = "--eve-client",
            defaultValue = "session",
            description = "session (EveClient) or legacy (the client before ClientSession, one per driver thread,"
                    + " as the baseline).")
    String eveClient;

    @Option(names = "--outstanding", defaultValue = "64", description = "Requests in flight.")
    int outstanding;

    @Option(names = "--objects", defaultValue = "1000", description = "Objects in the store.")
    int objects;

    @Option(names = "--warmup", defaultValue = "10", description = "Warm-up seconds.")
    double warmupSeconds;

    @Option(names = "--duration", defaultValue = "30", description = "Measured seconds.")
    double durationSeconds;

    private final PrintStream out;

    /** A load generator printing to {@code System.out}. */
    public DeployedLoad() {
        this(System.out);
    }

    DeployedLoad(PrintStream out) {
        this.out = out;
    }

    /**
     * What the load JVM measured in the window.
     *
     * @param requests requests committed in the window
     * @param seconds the window's length
     * @param errors requests that failed or got an error reply in the window
     * @param p50Nanos median latency
     * @param p99Nanos 99th percentile
     * @param p999Nanos 99.9th percentile
     * @param maxNanos the slowest
     * @param driverCpuNanos CPU of the driver threads (payload, continuation, the client's submit path)
     * @param processCpuNanos CPU of the whole load JVM as it sees it (client library threads included)
     * @param firstError the first error seen at all, or null
     */
    public record LoadResult(
            long requests,
            double seconds,
            long errors,
            long p50Nanos,
            long p99Nanos,
            long p999Nanos,
            long maxNanos,
            long driverCpuNanos,
            long processCpuNanos,
            String firstError) {}

    /** Runs the load generator; see the class comment. */
    public static void main(String[] args) {
        // As in the replica processes, so that the load JVM's CPU per request is what a user's client pays.
        ProcessDefaults.apply();
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.exit(new CommandLine(new DeployedLoad()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        try (AsyncClosedLoop.Target system = connect()) {
            awaitServing(system);
            AsyncClosedLoop loop = new AsyncClosedLoop(system, connections, outstanding, objects, 7);
            loop.start();
            Thread.sleep(Math.round(warmupSeconds * 1000));
            loop.interval();
            long cpuBefore = processCpu();
            out.println(MEASURE_START);
            out.flush();
            Thread.sleep(Math.round(durationSeconds * 1000));
            AsyncClosedLoop.Interval window = loop.interval();
            long cpuAfter = processCpu();
            out.println(MEASURE_END);
            out.flush();
            loop.stop(30);
            Histogram h = window.latencies();
            LoadResult result = new LoadResult(
                    h.getTotalCount(),
                    window.seconds(),
                    window.errors(),
                    h.getValueAtPercentile(50),
                    h.getValueAtPercentile(99),
                    h.getValueAtPercentile(99.9),
                    h.getMaxValue(),
                    window.driverCpuNanos(),
                    cpuAfter - cpuBefore,
                    loop.firstError());
            out.println(RESULT
                    + Json.mapper()
                            .writer()
                            .without(SerializationFeature.INDENT_OUTPUT)
                            .writeValueAsString(result));
            out.flush();
            return 0;
        }
    }

    /**
     * Sends one request over every connection until each commits, so that the warm-up starts once the system
     * serves (a Raft leader is elected, a replica answers) and not while it is still starting.
     */
    private void awaitServing(AsyncClosedLoop.Target system) throws InterruptedException {
        long deadline = System.nanoTime() + READY_LIMIT.toNanos();
        for (int c = 0; c < connections; c++) {
            String last = "no attempt";
            while (true) {
                try {
                    String error = system.send(c, AsyncClosedLoop.seededUpdate(c % objects, c))
                            .get(30, TimeUnit.SECONDS);
                    if (error == null) {
                        break;
                    }
                    last = error;
                } catch (ExecutionException | TimeoutException e) {
                    last = String.valueOf(e.getCause() != null ? e.getCause() : e);
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException(
                            "connection " + c + " got no committed request within " + READY_LIMIT + ": " + last);
                }
                Thread.sleep(100);
            }
        }
        out.println(READY);
        out.flush();
    }

    private static long processCpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /**
     * The unreplicated server ({@link UnreplicatedServer}) through the same client as Eve's profiles: one {@code
     * EveClient} whose only replica is the server, with attempts long enough that no request is sent twice.
     */
    private AsyncClosedLoop.Target unreplicated() {
        if (server == null || server.lastIndexOf(':') <= 0) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this), "--target unreplicated needs --server host:port, got " + server);
        }
        int colon = server.lastIndexOf(':');
        int port;
        try {
            port = Integer.parseInt(server.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this), "--server " + server + ": the port is not a number");
        }
        InetSocketAddress address = new InetSocketAddress(server.substring(0, colon), port);
        int clientId = ThreadLocalRandom.current().nextInt(1_000_000, Integer.MAX_VALUE - 100_000);
        NettyTransport transport = NettyTransport.builder()
                .self(clientId)
                .peers(Map.of(UnreplicatedServer.NODE, address))
                .build();
        ClientConfig config =
                ClientConfig.of(UnreplicatedServer.NODE).withTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(30));
        return shared(List.of(new EveClient(transport, config)));
    }

    /** The driver threads over {@code clients}, round robin. */
    private static AsyncClosedLoop.Target shared(List<EveClient> clients) {
        return new AsyncClosedLoop.Target() {
            @Override
            public CompletableFuture<String> send(int connection, byte[] payload) {
                return clients.get(connection % clients.size())
                        .submit(payload)
                        .thenApply(reply -> reply.error() ? reply.errorText() : null);
            }

            @Override
            public void close() {
                clients.forEach(EveClient::close);
            }
        };
    }

    /** The baseline: the client before ClientSession, one object (transport, timer) per driver thread. */
    private AsyncClosedLoop.Target legacy(ClusterConfig cluster) {
        List<LegacyEveClient> clients = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
            clients.add(LegacyEveClient.connect(cluster));
        }
        return new AsyncClosedLoop.Target() {
            @Override
            public CompletableFuture<String> send(int connection, byte[] payload) {
                return clients.get(connection)
                        .submit(payload)
                        .thenApply(reply -> reply.error() ? reply.errorText() : null);
            }

            @Override
            public void close() {
                clients.forEach(LegacyEveClient::close);
            }
        };
    }

    private AsyncClosedLoop.Target connect() {
        if (target.equals("unreplicated")) {
            return unreplicated();
        }
        if (target.equals("eve")) {
            if (config == null) {
                throw new CommandLine.ParameterException(
                        new CommandLine(this), "--target eve needs --config <cluster.properties>");
            }
            ClusterConfig cluster = ClusterConfig.load(config);
            if (eveClient.equals("legacy")) {
                return legacy(cluster);
            }
            if (!eveClient.equals("session")) {
                throw new CommandLine.ParameterException(
                        new CommandLine(this), "--eve-client must be session or legacy, got '" + eveClient + "'");
            }
            List<EveClient> clients = new ArrayList<>();
            for (int c = 0; c < Math.max(1, Math.min(eveClients, connections)); c++) {
                clients.add(EveClient.connect(cluster));
            }
            return shared(clients);
        }
        if (target.startsWith("ratis-")) {
            if (ratisPeers == null || ratisGroup == null) {
                throw new CommandLine.ParameterException(
                        new CommandLine(this), "--target " + target + " needs --ratis-peers and --ratis-group");
            }
            RatisProcesses.Rpc rpc = RatisProcesses.Rpc.parse(target.substring("ratis-".length()));
            RaftGroup group = RatisProcesses.group(ratisPeers, ratisGroup);
            RaftProperties properties = RatisProcesses.properties(rpc, 0);
            List<RaftClient> clients = new ArrayList<>();
            for (int c = 0; c < connections; c++) {
                clients.add(RaftClient.newBuilder()
                        .setProperties(properties)
                        .setRaftGroup(group)
                        .build());
            }
            return new AsyncClosedLoop.Target() {
                @Override
                public CompletableFuture<String> send(int connection, byte[] payload) {
                    return clients.get(connection)
                            .async()
                            .send(Message.valueOf(ByteString.copyFrom(payload)))
                            .thenApply(reply -> reply.isSuccess() ? null : String.valueOf(reply.getException()));
                }

                @Override
                public void close() throws java.io.IOException {
                    for (RaftClient client : clients) {
                        client.close();
                    }
                }
            };
        }
        throw new CommandLine.ParameterException(
                new CommandLine(this),
                "--target must be eve, unreplicated, ratis-grpc or ratis-netty, got '" + target + "'");
    }
}
