package io.eve.bench.latency;

import io.eve.Reply;
import io.eve.bench.harness.ChildJvms;
import io.eve.client.ClientConfig;
import io.eve.client.EveClient;
import io.eve.samples.cli.EveKv;
import io.eve.samples.kv.KvRequest;
import io.eve.transport.netty.NettyTransport;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.LongFunction;

/**
 * Latency of one request at a time against a primary-backup pair, in raw round trips. In one run it
 * measures (1) a ping-pong of 48-byte length-prefixed frames between this JVM and an echo server process
 * over loopback TCP with Netty, (2) the same ping through a {@link RelayServer} process that passes it to
 * the echo server and back (the four one-way trips through three processes of an ordered request, with
 * nothing else: the floor of that path), and (3) sequential requests from one {@link EveClient} to two
 * replica processes of the key-value sample ({@code eve-kv replica}, no work per request), first READs and
 * then SEEDED_UPDATEs, and READs again through {@link EveClient#read} (Eve §6's read-only optimisation:
 * both replicas answer directly, one round trip on the wire). An ordered request needs two round trips on
 * the wire at least (client to primary and back, primary to backup and back); the rest is execution,
 * sealing, tokens and thread hand-offs. Besides latency it reports each process's CPU time per round trip
 * for every kind ({@link CpuMeter}).
 *
 * <p>Every kind is warmed up, in the same alternation as it is measured, until both {@code warm-up} of each
 * kind ran and {@code warm-up-seconds} passed: HotSpot compiles the hot paths of five JVMs on two cores for
 * tens of seconds, and a run measured before that measures the compiler (docs/benchmarks.md, "Low load,
 * warm"). The CPU time of each process's JIT compiler threads during the measured rounds is printed, so a
 * reader can see that it was small.
 *
 * <p>Usage: {@code java -cp tpcw-bench/target/benchmarks.jar io.eve.bench.latency.LatencyBenchmark
 * [measured] [warm-up] [log-dir] [warm-up-seconds]}, defaults 20,000, 5,000, {@code
 * tpcw-bench/target/latency} and 60.
 */
public final class LatencyBenchmark {
    private static final int PING_BODY_BYTES = 44;
    private static final int OBJECTS = 1_000;
    private static final int CLIENT_ID = 7_000_001;
    private static final int ROUNDS = 10;
    /** The heap of every child process. */
    private static final List<String> CHILD_HEAP = List.of("-Xmx256m");

    private static final String[] KINDS = {
        "raw Netty ping-pong, 48-byte frames",
        "relayed ping-pong (client, relay, echo)",
        "Eve primary-backup, READ",
        "Eve primary-backup, SEEDED_UPDATE",
        "Eve primary-backup, READ read-only (Eve §6)"
    };
    private static final int PING = 0;
    private static final int RELAY = 1;
    private static final int READ = 2;
    private static final int UPDATE = 3;
    private static final int READ_ONLY = 4;

    private final int measured;
    private final int warmUp;
    private final Duration warmUpTime;
    private final PrintStream out;

    LatencyBenchmark(int measured, int warmUp, Duration warmUpTime, PrintStream out) {
        if (measured < ROUNDS || warmUp < 0 || warmUpTime.isNegative()) {
            throw new IllegalArgumentException("measured must be at least " + ROUNDS
                    + " and the warm-up (requests and time) not negative, got " + measured + ", " + warmUp + " and "
                    + warmUpTime);
        }
        this.measured = measured;
        this.warmUp = warmUp;
        this.warmUpTime = warmUpTime;
        this.out = out;
    }

    public static void main(String[] args) throws Exception {
        int measured = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int warmUp = args.length > 1 ? Integer.parseInt(args[1]) : 5_000;
        Path logDir = Path.of(args.length > 2 ? args[2] : "tpcw-bench/target/latency");
        Duration warmUpTime = Duration.ofSeconds(args.length > 3 ? Long.parseLong(args[3]) : 60);
        new LatencyBenchmark(measured, warmUp, warmUpTime, System.out).run(logDir);
    }

    /**
     * What one run measured: per kind (in {@link #KINDS}' order) the latencies and each process's CPU time;
     * each process's JIT compiler CPU time over the measured rounds (-1: not known); the read-only requests
     * answered.
     */
    record Result(
            List<String> kinds,
            List<Percentiles> latency,
            List<long[]> cpuNanos,
            long[] compilerNanos,
            long readsAnswered) {}

    /** Starts the processes (logs in {@code logDir}), measures, prints the tables, stops the processes. */
    Result run(Path logDir) throws Exception {
        try (ChildJvms children = new ChildJvms(logDir)) {
            return run(children);
        }
    }

    private Result run(ChildJvms children) throws Exception {
        // echo, relay, node 0, node 1, metrics of node 0 (node 1's is the next port, free as well)
        int[] ports = ChildJvms.freePortsWithSuccessor(5);
        out.printf(
                "one request at a time over 127.0.0.1, %,d measured of each kind after a warm-up of at least %,d of"
                        + " each and %d s, in %d interleaved rounds (logs in %s)%n",
                measured, warmUp, warmUpTime.toSeconds(), ROUNDS, children.logDir());
        Process echo =
                children.start("echo", CHILD_HEAP, EchoServer.class.getName(), List.of(Integer.toString(ports[0])));
        Process relay = children.start(
                "relay",
                CHILD_HEAP,
                RelayServer.class.getName(),
                List.of(Integer.toString(ports[1]), Integer.toString(ports[0])));
        Process[] replicas = startReplicas(children, ports);
        int metricsPort = ports[4];
        CpuMeter cpu = new CpuMeter(
                ProcessHandle.current(),
                echo.toHandle(),
                relay.toHandle(),
                replicas[0].toHandle(),
                replicas[1].toHandle());
        long[][] latency = new long[KINDS.length][measured];
        // CPU time of each process while each kind ran
        long[][] cpuNanos = new long[KINDS.length][cpu.processes()];
        long[] readOnlyOutcomes = new long[2];
        long[] compilerNanos = new long[cpu.processes()];
        double[] readExecution = new double[2];
        double[] updateExecution = new double[2];
        byte[] frame = LengthPrefixedFrames.newFrame(PING_BODY_BYTES);
        try (PingClient pinger = new PingClient();
                PingClient relayed = new PingClient();
                EveClient client = newClient(ports)) {
            pinger.connect(new InetSocketAddress("127.0.0.1", ports[0]), Duration.ofSeconds(30));
            relayed.connect(new InetSocketAddress("127.0.0.1", ports[1]), Duration.ofSeconds(30));
            SplittableRandom random = new SplittableRandom(1);
            LongFunction<byte[]> reads = i -> KvRequest.encode(new KvRequest.Read(random.nextInt(OBJECTS)));
            LongFunction<byte[]> updates =
                    i -> KvRequest.encode(new KvRequest.SeededUpdate(random.nextInt(OBJECTS), random.nextLong()));
            // Everything is compiled before anything is measured, so no kind pays for the JIT. A count alone is
            // not enough: at one request in flight C2 was still 60 % of the primary's CPU after 5,000 of each.
            long warmUpEnd = System.nanoTime() + warmUpTime.toNanos();
            int warmed = 0;
            for (int i = 0; i < warmUp || System.nanoTime() - warmUpEnd < 0; i++) {
                pinger.ping(frame);
                relayed.ping(frame);
                check(client.call(reads.apply(i)));
                check(client.call(updates.apply(i)));
                check(readOnly(client, reads.apply(i)));
                warmed++;
            }
            out.printf("warmed up with %,d of each kind%n", warmed);
            long[] compilerMark = cpu.compilerSample();
            // The machine's load drifts: measuring the kinds in alternating rounds exposes them to the same
            // conditions, so their ratio means something even on a shared machine.
            for (int round = 0; round < ROUNDS; round++) {
                int from = (int) ((long) measured * round / ROUNDS);
                int to = (int) ((long) measured * (round + 1) / ROUNDS);
                long[] mark = cpu.sample();
                for (int i = from; i < to; i++) {
                    latency[PING][i] = pinger.ping(frame);
                }
                mark = cpu.addSince(mark, cpuNanos[PING]);
                for (int i = from; i < to; i++) {
                    latency[RELAY][i] = relayed.ping(frame);
                }
                cpu.addSince(mark, cpuNanos[RELAY]);
                double[] before = executionTotals(metricsPort);
                mark = cpu.sample();
                measureRequests(client::call, reads, latency[READ], from, to);
                cpu.addSince(mark, cpuNanos[READ]);
                double[] middle = executionTotals(metricsPort);
                mark = cpu.sample();
                measureRequests(client::call, updates, latency[UPDATE], from, to);
                cpu.addSince(mark, cpuNanos[UPDATE]);
                double[] after = executionTotals(metricsPort);
                mark = cpu.sample();
                measureRequests(request -> readOnly(client, request), reads, latency[READ_ONLY], from, to);
                cpu.addSince(mark, cpuNanos[READ_ONLY]);
                accumulate(readExecution, before, middle);
                accumulate(updateExecution, middle, after);
            }
            long[] compilerEnd = cpu.compilerSample();
            for (int i = 0; i < compilerNanos.length; i++) {
                compilerNanos[i] = compilerMark[i] < 0 || compilerEnd[i] < 0 ? -1 : compilerEnd[i] - compilerMark[i];
            }
            readOnlyOutcomes[0] = client.readsAnswered();
            readOnlyOutcomes[1] = client.readsReissued();
        }
        Percentiles ping = Percentiles.of(latency[PING]);
        Percentiles relayPing = Percentiles.of(latency[RELAY]);
        out.printf("%n%-46s %9s %9s %9s %9s %9s%n", "round trip", "p50 us", "p90 us", "p99 us", "/ ping", "/ relay");
        for (int kind = 0; kind < KINDS.length; kind++) {
            Percentiles these = Percentiles.of(latency[kind]);
            out.printf(
                    "%-46s %9.1f %9.1f %9.1f %8.2fx %8.2fx%n",
                    KINDS[kind],
                    these.p50(),
                    these.p90(),
                    these.p99(),
                    these.p50() / ping.p50(),
                    these.p50() / relayPing.p50());
        }
        out.printf("(ratios of p50s; the relay is the floor of an ordered request's path: four one-way trips"
                + " through three processes)%n");
        out.printf("%nCPU time per round trip, us (all threads of each process; /proc counts in 10 ms ticks)%n");
        out.printf("%-46s %9s %9s %9s %9s %9s%n", "", "client", "echo", "relay", "node 0", "node 1");
        for (int kind = 0; kind < KINDS.length; kind++) {
            out.printf("%-46s", KINDS[kind]);
            for (long nanos : cpuNanos[kind]) {
                out.printf(" %9.1f", nanos / 1_000.0 / measured);
            }
            out.printf("%n");
        }
        out.printf("%-46s", "JIT compile CPU in the measured rounds, ms");
        for (long nanos : compilerNanos) {
            out.printf(" %9s", nanos < 0 ? "n/a" : String.format("%.0f", nanos / 1e6));
        }
        out.printf("%n");
        out.printf(
                "%nread-only: %,d answered by both replicas alike, %,d reissued as ordered requests%n",
                readOnlyOutcomes[0], readOnlyOutcomes[1]);
        out.printf(
                "the primary executed and sealed a batch in %.1f us on average for READ and %.1f us for"
                        + " SEEDED_UPDATE (eve.batch.execution)%n",
                meanMicros(readExecution), meanMicros(updateExecution));
        return new Result(
                List.of(KINDS),
                Arrays.stream(latency).map(Percentiles::of).toList(),
                List.of(cpuNanos),
                compilerNanos,
                readOnlyOutcomes[0]);
    }

    private static void accumulate(double[] totals, double[] before, double[] after) {
        totals[0] += after[0] - before[0];
        totals[1] += after[1] - before[1];
    }

    private static Reply readOnly(EveClient client, byte[] request) {
        try {
            return client.read(request).get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("a read-only request failed", e);
        }
    }

    private static void measureRequests(
            Function<byte[], Reply> call, LongFunction<byte[]> requests, long[] nanos, int from, int to) {
        for (int i = from; i < to; i++) {
            byte[] request = requests.apply(i);
            long start = System.nanoTime();
            Reply reply = call.apply(request);
            nanos[i] = System.nanoTime() - start;
            check(reply);
        }
    }

    private static void check(Reply reply) {
        if (reply.error()) {
            throw new IllegalStateException("the cluster answered with an error: " + reply.errorText());
        }
    }

    private Process[] startReplicas(ChildJvms children, int[] ports) throws IOException, InterruptedException {
        Path config = children.logDir().resolve("cluster.properties");
        Files.writeString(
                config,
                String.join(
                        "\n",
                        "profile=primary-backup",
                        "nodes=0@127.0.0.1:" + ports[2] + ", 1@127.0.0.1:" + ports[3],
                        "executor.threads=2",
                        "metrics.port=" + ports[4],
                        ""),
                StandardCharsets.UTF_8);
        Process[] replicas = new Process[2];
        for (int node = 0; node < 2; node++) {
            replicas[node] = children.start(
                    "node-" + node,
                    CHILD_HEAP,
                    EveKv.class.getName(),
                    List.of(
                            "replica",
                            "--config",
                            config.toString(),
                            "--node",
                            Integer.toString(node),
                            "--objects",
                            Integer.toString(OBJECTS),
                            "--object-size",
                            "64",
                            "--work-us",
                            "0",
                            "--status-every-ms",
                            "10000"));
        }
        awaitStatus(ports[4]);
        awaitStatus(ports[4] + 1);
        return replicas;
    }

    private static void awaitStatus(int port) throws InterruptedException {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/status"))
                .timeout(Duration.ofSeconds(1))
                .build();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() - deadline < 0) {
            try {
                if (http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // The replica is still starting.
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("no replica status on port " + port + " within 30 s");
    }

    /** The sum in seconds and the count of the primary's {@code eve.batch.execution} timer, from /metrics. */
    private static double[] executionTotals(int metricsPort) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/metrics"))
                .timeout(Duration.ofSeconds(2))
                .build();
        String text = HttpClient.newHttpClient()
                .send(request, HttpResponse.BodyHandlers.ofString())
                .body();
        double[] totals = new double[2];
        for (String line : text.split("\n")) {
            String value = line.substring(line.lastIndexOf(' ') + 1);
            if (line.startsWith("eve_batch_execution_seconds_sum")) {
                totals[0] = Double.parseDouble(value);
            } else if (line.startsWith("eve_batch_execution_seconds_count")) {
                totals[1] = Double.parseDouble(value);
            }
        }
        return totals;
    }

    private static double meanMicros(double[] totals) {
        return totals[1] == 0 ? 0 : totals[0] / totals[1] * 1e6;
    }

    private static EveClient newClient(int[] ports) {
        NettyTransport transport = NettyTransport.builder()
                .self(CLIENT_ID)
                .peers(Map.of(
                        0, new InetSocketAddress("127.0.0.1", ports[2]),
                        1, new InetSocketAddress("127.0.0.1", ports[3])))
                .build();
        return new EveClient(
                transport, ClientConfig.of(0, 1).withTimeouts(Duration.ofMillis(600), Duration.ofSeconds(30)));
    }

    /** Latency percentiles in microseconds. */
    record Percentiles(double p50, double p90, double p99) {
        static Percentiles of(long[] nanos) {
            long[] sorted = nanos.clone();
            Arrays.sort(sorted);
            return new Percentiles(rank(sorted, 0.50), rank(sorted, 0.90), rank(sorted, 0.99));
        }

        /** The nearest-rank percentile. */
        private static double rank(long[] sorted, double quantile) {
            int index = (int) Math.ceil(quantile * sorted.length) - 1;
            return sorted[Math.max(0, index)] / 1_000.0;
        }
    }
}
