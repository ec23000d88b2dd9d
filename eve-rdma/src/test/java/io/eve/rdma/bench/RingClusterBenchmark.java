package io.eve.rdma.bench;

import io.eve.rdma.RdmaTransport;
import io.eve.rdma.memory.InMemoryFabric;
import io.eve.transport.LocalNetwork;
import io.eve.transport.netty.NettyTransport;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/**
 * What the ring costs a cluster (docs/benchmarks.md, "RDMA rings on the in-memory fabric against
 * LocalNetwork"): the same in-process cluster, with the same clients on a {@link LocalNetwork}, once with its
 * replica-to-replica traffic on {@link RdmaTransport} over the {@link InMemoryFabric}, once on a second
 * {@link LocalNetwork} (objects handed over, no encoding) and once on {@link NettyTransport} over
 * 127.0.0.1, one after the other in each run, in an order that rotates between runs. A closed loop keeps
 * {@code outstanding} ordered requests in flight (adds to one of 1,000 counters); each point is a fresh
 * cluster, warmed up, then measured: requests per second, p50 and p99 latency (HdrHistogram), and for the
 * ring how many messages went through rings and how many by the control channel. A measurement, not a test.
 *
 * <p>Arguments: {@code runs warmupSeconds measureSeconds outstanding...} (default {@code 3 3 5 1 64});
 * the profiles are primary-backup (2 replicas) and crash (3 processes). System properties {@code
 * bench.profiles} and {@code bench.paths} (comma-separated names) measure a subset, {@code
 * bench.maxIdleParkMicros} sets the ring transport's longest idle park. Path {@code poll} is the ring
 * without doorbells (a ring entry waits for its receiver's park to end), for comparison in the same run. Also printed per point: CPU time of
 * the JVM per request and of the threads that deliver messages, messages between replicas per request,
 * and the cluster's highest view at the end (a view change inside a point shows there).
 */
public final class RingClusterBenchmark {
    static final int OBJECTS = 1_000;
    static final int CLIENTS = 4;

    private RingClusterBenchmark() {}

    /** Which transport carries the replicas' traffic to each other. */
    enum Path {
        LOCAL,
        NETTY,
        /** The ring with doorbells (the default). */
        RING,
        /** The ring without doorbells: an entry waits for the receiver's park to end, as before issue 23's fix. */
        POLL;

        boolean ring() {
            return this == RING || this == POLL;
        }
    }

    /** Which protocol the cluster runs. */
    enum Profile {
        PRIMARY_BACKUP(2),
        CRASH(3);

        final int processes;

        Profile(int processes) {
            this.processes = processes;
        }
    }

    /** One measured point. */
    record Point(
            int run,
            Profile profile,
            int outstanding,
            Path path,
            double perSecond,
            double p50Micros,
            double p99Micros,
            double cpuMicrosPerRequest,
            double transportCpuMicrosPerRequest,
            long count,
            long errors,
            long viaRing,
            long viaControl,
            long degrades,
            long view,
            double messagesPerRequest,
            String busiest,
            String load) {}

    /** Runs the measurement; see the class comment for the arguments. */
    public static void main(String[] args) throws Exception {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        int measure = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        int[] loads = args.length > 3
                ? Arrays.stream(args, 3, args.length)
                        .mapToInt(Integer::parseInt)
                        .toArray()
                : new int[] {1, 64};
        System.out.printf(
                "%d runs, %d s warm-up, %d s measured, outstanding %s, %d CPUs, JDK %s, load %s%n",
                runs,
                warmup,
                measure,
                Arrays.toString(loads),
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"),
                loadAverage());
        System.out.println(
                "run profile        outst path    req/s      p50 us     p99 us cpu us/req (transport)   errors  ring msgs  control msgs degrades view"
                        + " msgs/req busiest                  load");
        List<Point> points = new ArrayList<>();
        for (int run = 1; run <= runs; run++) {
            Path[] order = rotated(run);
            for (Profile profile : selected(Profile.values(), "bench.profiles")) {
                for (int outstanding : loads) {
                    for (Path path : selected(order, "bench.paths")) {
                        Point point = measure(run, profile, outstanding, path, warmup, measure);
                        points.add(point);
                        print(point);
                    }
                }
            }
        }
        summarize(points, runs, loads);
    }

    /** The values named in system property {@code key} (comma-separated, any case), or all of them. */
    private static <E extends Enum<E>> List<E> selected(E[] values, String key) {
        String names = System.getProperty(key);
        if (names == null) {
            return List.of(values);
        }
        Set<String> wanted = Arrays.stream(names.split(","))
                .map(name -> name.trim().toUpperCase(java.util.Locale.ROOT))
                .collect(Collectors.toSet());
        return Arrays.stream(values)
                .filter(value -> wanted.contains(value.name()))
                .toList();
    }

    private static Path[] rotated(int run) {
        Path[] all = Path.values();
        Path[] order = new Path[all.length];
        for (int i = 0; i < all.length; i++) {
            order[i] = all[(i + run - 1) % all.length];
        }
        return order;
    }

    private static Point measure(int run, Profile profile, int outstanding, Path path, int warmup, int measure)
            throws Exception {
        try (BenchCluster cluster = new BenchCluster(profile, path);
                ClosedLoop loop = new ClosedLoop(cluster.clients(), outstanding)) {
            loop.start();
            loop.awaitFirst(Duration.ofSeconds(30));
            Thread.sleep(TimeUnit.SECONDS.toMillis(warmup));
            loop.interval();
            long[] before = cluster.ringCounts();
            Map<String, Long> typesBefore = cluster.sentByType();
            long cpuBefore = processCpuNanos();
            long transportBefore = transportCpuNanos();
            Thread.sleep(TimeUnit.SECONDS.toMillis(measure));
            ClosedLoop.Interval window = loop.interval();
            long[] after = cluster.ringCounts();
            Map<String, Long> typesAfter = cluster.sentByType();
            long cpu = processCpuNanos() - cpuBefore;
            long transportCpu = transportCpuNanos() - transportBefore;
            String load = loadAverage();
            loop.stop();
            Histogram latencies = window.latencies();
            return new Point(
                    run,
                    profile,
                    outstanding,
                    path,
                    latencies.getTotalCount() / window.seconds(),
                    latencies.getValueAtPercentile(50) / 1_000.0,
                    latencies.getValueAtPercentile(99) / 1_000.0,
                    cpu / 1_000.0 / Math.max(1, latencies.getTotalCount()),
                    transportCpu / 1_000.0 / Math.max(1, latencies.getTotalCount()),
                    latencies.getTotalCount(),
                    window.errors(),
                    after[0] - before[0],
                    after[1] - before[1],
                    after[2],
                    cluster.highestView(),
                    messages(typesBefore, typesAfter) / (double) Math.max(1, latencies.getTotalCount()),
                    busiest(typesBefore, typesAfter),
                    load);
        }
    }

    private static long messages(Map<String, Long> before, Map<String, Long> after) {
        return after.entrySet().stream()
                .mapToLong(entry -> entry.getValue() - before.getOrDefault(entry.getKey(), 0L))
                .sum();
    }

    /** The message type the replicas sent most of in the window, with its count. */
    private static String busiest(Map<String, Long> before, Map<String, Long> after) {
        return after.entrySet().stream()
                .map(entry -> Map.entry(entry.getKey(), entry.getValue() - before.getOrDefault(entry.getKey(), 0L)))
                .max(Map.Entry.comparingByValue())
                .map(entry -> entry.getKey() + "=" + entry.getValue())
                .orElse("-");
    }

    private static void print(Point point) {
        System.out.printf(
                "%3d %-14s %5d %-6s %8.0f %10.0f %10.0f %10.1f %11.1f %8d %10s %13s %8s %4d %8.1f %-24s %s%n",
                point.run(),
                point.profile().name().toLowerCase(java.util.Locale.ROOT),
                point.outstanding(),
                point.path().name().toLowerCase(java.util.Locale.ROOT),
                point.perSecond(),
                point.p50Micros(),
                point.p99Micros(),
                point.cpuMicrosPerRequest(),
                point.transportCpuMicrosPerRequest(),
                point.errors(),
                point.path().ring() ? Long.toString(point.viaRing()) : "-",
                point.path().ring() ? Long.toString(point.viaControl()) : "-",
                point.path().ring() ? Long.toString(point.degrades()) : "-",
                point.view(),
                point.messagesPerRequest(),
                point.busiest(),
                point.load());
    }

    /** Per profile and load: the ring's throughput and latency as ratios to the other paths, run by run. */
    private static void summarize(List<Point> points, int runs, int[] loads) {
        Set<Path> measured = points.stream().map(Point::path).collect(Collectors.toSet());
        if (!measured.contains(Path.RING) || measured.size() < 2) {
            return;
        }
        System.out.println();
        System.out.println("medians over the runs (min..max)");
        List<Profile> profiles =
                points.stream().map(Point::profile).distinct().sorted().toList();
        for (Profile profile : profiles) {
            for (int outstanding : loads) {
                for (Path path : measured.stream().sorted().toList()) {
                    List<Point> all = points.stream()
                            .filter(p -> p.profile() == profile && p.outstanding() == outstanding && p.path() == path)
                            .toList();
                    System.out.printf(
                            "%-14s outstanding %3d %-6s req/s %s  p50 us %s  p99 us %s  cpu us/req %s%n",
                            profile.name().toLowerCase(java.util.Locale.ROOT),
                            outstanding,
                            path.name().toLowerCase(java.util.Locale.ROOT),
                            spread(all, Point::perSecond),
                            spread(all, Point::p50Micros),
                            spread(all, Point::p99Micros),
                            spread(all, Point::cpuMicrosPerRequest));
                }
            }
        }
        System.out.println();
        System.out.println(
                "ratios ring / baseline, per run (req/s: above 1 is faster; p50, p99, CPU per request: above 1 is slower)");
        for (Profile profile : profiles) {
            for (int outstanding : loads) {
                for (Path baseline : List.of(Path.LOCAL, Path.NETTY, Path.POLL)) {
                    if (!measured.contains(baseline)) {
                        continue;
                    }
                    List<String> perRun = new ArrayList<>();
                    for (int run = 1; run <= runs; run++) {
                        Point ring = find(points, run, profile, outstanding, Path.RING);
                        Point base = find(points, run, profile, outstanding, baseline);
                        perRun.add(String.format(
                                "%.2f/%.2f/%.2f/%.2f",
                                ring.perSecond() / base.perSecond(),
                                ring.p50Micros() / base.p50Micros(),
                                ring.p99Micros() / base.p99Micros(),
                                ring.cpuMicrosPerRequest() / base.cpuMicrosPerRequest()));
                    }
                    System.out.printf(
                            "%-14s outstanding %3d  ring / %-5s  req/s/p50/p99/cpu: %s%n",
                            profile.name().toLowerCase(java.util.Locale.ROOT),
                            outstanding,
                            baseline.name().toLowerCase(java.util.Locale.ROOT),
                            String.join("  ", perRun));
                }
            }
        }
    }

    private static String spread(List<Point> points, java.util.function.ToDoubleFunction<Point> value) {
        double[] sorted = points.stream().mapToDouble(value).sorted().toArray();
        return String.format("%.0f (%.0f..%.0f)", sorted[sorted.length / 2], sorted[0], sorted[sorted.length - 1]);
    }

    private static Point find(List<Point> points, int run, Profile profile, int outstanding, Path path) {
        return points.stream()
                .filter(p ->
                        p.run() == run && p.profile() == profile && p.outstanding() == outstanding && p.path() == path)
                .findFirst()
                .orElseThrow();
    }

    /** CPU time of this JVM (every thread: replicas, transports, clients, the driver, GC, JIT). */
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /**
     * CPU time of the threads that receive and deliver messages: the ring's poller and verbs threads, Netty's
     * event loops (the ring's control channel, or the Netty path), and LocalNetwork's inbox threads (clients
     * and, on the local path, replicas). Each also runs the protocol handler of what it delivers.
     */
    private static long transportCpuNanos() {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long total = 0;
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            String name = thread.getName();
            if (name.startsWith("rdma-")
                    || name.startsWith("multiThreadIoEventLoopGroup")
                    || name.startsWith("local-node")) {
                total += Math.max(0, threads.getThreadCpuTime(thread.getId()));
            }
        }
        return total;
    }

    static String loadAverage() {
        try {
            String[] fields = Files.readString(java.nio.file.Path.of("/proc/loadavg"))
                    .trim()
                    .split(" ");
            return fields[0] + " " + fields[1] + " " + fields[2];
        } catch (java.io.IOException e) {
            return "n/a";
        }
    }
}
