package io.eve.bench.deployed;

import io.eve.bench.harness.ChildJvms;
import io.eve.bench.harness.Json;
import io.eve.bench.harness.ProcessCpu;
import io.eve.bench.ratis.RatisProcesses;
import io.eve.config.ClusterConfig;
import io.eve.samples.cli.ReplicaLaunch;
import io.eve.tpcw.bench.ReplicaProbe;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The deployed benchmark: every replica its own JVM (Eve's profiles as {@code config/<profile>.properties}
 * lays them out, on free ports of 127.0.0.1; Apache Ratis as three server JVMs over gRPC or Netty with its
 * in-memory log; on request one unreplicated server, {@link UnreplicatedServer}) and the load generator its own
 * JVM ({@link DeployedLoad}), zero work by default. Per point it
 * prints requests/s, latency percentiles, CPU per request of every process, view changes and rollbacks, and
 * the ratio to the best Ratis point (and to the unreplicated point) of the same run; at the end the median and spread per system, and
 * {@code deployed.json} in the output directory. Exit code 0 when every point committed requests without
 * errors (and Eve's replicas ended with equal roots), 1 otherwise, 2 for a usage error.
 *
 * <p>{@code java -cp tpcw-bench/target/benchmarks.jar io.eve.bench.deployed.DeployedBenchmark}; see
 * docs/benchmarks.md.
 */
@Command(
        name = "deployed",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = "Eve's profiles and Apache Ratis as separate JVMs, driven by a load JVM.")
public final class DeployedBenchmark implements Callable<Integer> {
    /**
     * The suffix of an Eve system measured with the client before ClientSession ({@link LegacyEveClient}, one
     * per driver thread) instead of one shared EveClient: the old and the new client in the same run.
     */
    static final String LEGACY_CLIENT = "/legacy-client";

    /**
     * The suffix of an Eve system run with mutual TLS 1.3 on every connection (replica to replica and the load's
     * client to the replicas): {@code tls.enabled=on} with localhost demo certificates generated into the
     * point's folder, in place of the shipped {@code tls.*} settings. The shipped bft profile already runs with
     * TLS; this measures what TLS costs the others.
     */
    static final String TLS = "/tls";

    /** The systems run by default, in the order they run. */
    static final List<String> SYSTEMS = List.of("primary-backup", "crash", "bft", "ratis-grpc", "ratis-netty");

    /**
     * The unreplicated baseline ({@link UnreplicatedServer}): one server JVM with the same store, work and
     * threads and no replication, measured on request; every point of its run gets its ratio to it.
     */
    static final String UNREPLICATED = "unreplicated";

    /** Every system {@code --systems} accepts. */
    static final List<String> KNOWN_SYSTEMS =
            List.of(UNREPLICATED, "primary-backup", "crash", "bft", "ratis-grpc", "ratis-netty");

    /** The shipped profile whose {@code executor.threads} sizes the unreplicated server's pool without --threads. */
    static final String THREADS_PROFILE = "primary-backup";

    /** The storage modes, and the suffix of a durable point's system name. */
    static final String IN_MEMORY = "in-memory";

    static final String DURABLE = "durable";

    private static final Duration START_LIMIT = Duration.ofSeconds(120);
    /**
     * The default warm-up: on two cores the bft profile's five JVMs (four replicas and the load) still compile
     * 60 s after the load starts, at a third of their warm speed at 30 s (docs/benchmarks.md, "How long the
     * JVMs need to warm up"); a throughput that looks flat is not proof, since compilation leaves plateaus.
     */
    static final double DEFAULT_WARMUP_SECONDS = 90;

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--systems",
            split = ",",
            description = "Of unreplicated, primary-backup, crash, bft, ratis-grpc, ratis-netty (default: all but"
                    + " unreplicated); an Eve system with"
                    + " /legacy-client runs the load with the client before ClientSession, as a baseline; with /tls"
                    + " every connection uses mutual TLS 1.3 (demo certificates in the point's folder).")
    private List<String> systems = SYSTEMS;

    @Option(
            names = "--storage",
            split = ",",
            description = "Of in-memory, durable: how Eve's replicas keep their state; durable sets storage.dir"
                    + " (in the point's folder) with storage.sync=batch, a point per mode (default: in-memory).")
    private List<String> storage = List.of(IN_MEMORY);

    @Option(
            names = "--runs",
            defaultValue = "1",
            description = "Times the whole sequence runs (default ${DEFAULT-VALUE}).")
    private int runs;

    @Option(
            names = "--outstanding",
            defaultValue = "64",
            description = "Requests in flight (default ${DEFAULT-VALUE}).")
    private int outstanding;

    @Option(
            names = "--connections",
            defaultValue = "4",
            description =
                    "Driver threads in the load JVM; against Eve they share one EveClient, against Ratis each has its own client (default ${DEFAULT-VALUE})")
    private int connections;

    @Option(names = "--objects", defaultValue = "1000", description = "Objects (default ${DEFAULT-VALUE}).")
    private int objects;

    @Option(
            names = "--object-size",
            defaultValue = "1024",
            description = "Bytes per object (default ${DEFAULT-VALUE}).")
    private int objectSize;

    @Option(
            names = "--work-us",
            defaultValue = "0",
            description = "Blocking work per request, microseconds (default ${DEFAULT-VALUE}).")
    private long workMicros;

    @Option(
            names = "--threads",
            description = "Execution threads of every Eve replica (executor.threads) and of the unreplicated server"
                    + " (default: as shipped; the unreplicated server takes the shipped " + THREADS_PROFILE
                    + " profile's).")
    private Integer threads;

    @Option(
            names = "--warmup",
            description = "Warm-up seconds before the measured window (default 90; 3 with --quick).")
    private Double warmupSeconds;

    @Option(names = "--duration", description = "Measured seconds (default 30; 5 with --quick).")
    private Double durationSeconds;

    @Option(names = "--quick", description = "3 s warm-up and 5 s measured per point, for a local check.")
    private boolean quick;

    @Option(
            names = "--config-dir",
            defaultValue = "config",
            description = "Where the shipped profiles are (default ${DEFAULT-VALUE}).")
    private Path configDir;

    @Option(
            names = "--replica-jvm",
            split = " ",
            description = "JVM options of each replica and Ratis server (default: -Xms1g -Xmx1g).")
    private List<String> replicaJvm = List.of("-Xms1g", "-Xmx1g");

    @Option(
            names = "--load-jvm",
            split = " ",
            description = "JVM options of the load JVM (default: -Xms512m -Xmx512m).")
    private List<String> loadJvm = List.of("-Xms512m", "-Xmx512m");

    @Option(
            names = "--output",
            defaultValue = "tpcw-bench/target/deployed",
            description = "Output directory (default ${DEFAULT-VALUE}).")
    private Path output;

    private final PrintStream out;
    private List<DeployedPoint> points = List.of();

    /** A benchmark printing to {@code System.out}. */
    public DeployedBenchmark() {
        this(System.out);
    }

    DeployedBenchmark(PrintStream out) {
        this.out = out;
    }

    /** Runs the benchmark; see the class comment. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new DeployedBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        validate();
        double warmup = warmupSeconds != null ? warmupSeconds : quick ? 3 : DEFAULT_WARMUP_SECONDS;
        double duration = durationSeconds != null ? durationSeconds : quick ? 5 : 30;
        out.printf(
                Locale.ROOT,
                "deployed: %s, %d run(s), %d outstanding over %d connections, %d objects of %d B, %d us work,"
                        + " %s execution threads, %.0f s measured after %.0f s warm-up, storage %s, %d cores,"
                        + " load average %.1f%n",
                systems,
                runs,
                outstanding,
                connections,
                objects,
                objectSize,
                workMicros,
                threads == null ? "shipped (" + executionThreads() + ")" : threads.toString(),
                duration,
                warmup,
                storage,
                Runtime.getRuntime().availableProcessors(),
                loadAverage());
        List<DeployedPoint> measured = new ArrayList<>();
        for (int run = 1; run <= runs; run++) {
            for (String system : systems) {
                for (String mode : isEveProfile(system) ? storage : List.of(IN_MEMORY)) {
                    DeployedPoint point = measure(run, system, mode.equals(DURABLE), warmup, duration);
                    measured.add(point);
                    out.println(row(point));
                }
            }
        }
        points = DeployedSummary.withRatios(measured);
        printSummary();
        Files.createDirectories(output);
        Path json = output.resolve("deployed.json");
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("date", Instant.now().toString());
        report.put("cpus", Runtime.getRuntime().availableProcessors());
        report.put("jvm", System.getProperty("java.vm.version"));
        report.put("outstanding", outstanding);
        report.put("connections", connections);
        report.put("objects", objects);
        report.put("objectSize", objectSize);
        report.put("workMicros", workMicros);
        report.put("threads", executionThreads());
        report.put("warmupSeconds", warmup);
        report.put("seconds", duration);
        report.put("storage", storage);
        report.put("points", points);
        report.put("durableRatios", DeployedSummary.durableRatios(points, DURABLE));
        Files.writeString(json, Json.render(report), StandardCharsets.UTF_8);
        out.println("wrote " + json);
        boolean ok = points.stream()
                .allMatch(p -> p.requests() > 0
                        && p.errors() == 0
                        && !p.check().startsWith("roots DIFFER")
                        && !p.check().startsWith("EXITED"));
        return ok ? 0 : 1;
    }

    /** The points of the last {@link #call}, with their ratios. */
    List<DeployedPoint> points() {
        return points;
    }

    private void validate() {
        for (String system : systems) {
            SystemSpec parsed;
            try {
                parsed = SystemSpec.parse(system);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--systems: " + e.getMessage());
            }
            if (parsed.eve()) {
                // Refused now, not after the points before it were measured.
                Path shipped = configDir.resolve(parsed.base() + ".properties");
                require(
                        Files.isRegularFile(shipped),
                        "--config-dir",
                        "no " + shipped.toAbsolutePath() + " for system '" + system
                                + "' (run from the repository's root or pass --config-dir)");
            }
        }
        require(!systems.isEmpty(), "--systems", "at least one system is needed");
        for (String mode : storage) {
            require(
                    mode.equals(IN_MEMORY) || mode.equals(DURABLE),
                    "--storage",
                    "unknown mode '" + mode + "'; expected of " + List.of(IN_MEMORY, DURABLE));
        }
        require(
                !storage.isEmpty() && storage.stream().distinct().count() == storage.size(),
                "--storage",
                "each mode once");
        if (threads != null) {
            require(threads >= 1 && threads <= 1024, "--threads", "must be in [1, 1024], got " + threads);
        }
        require(runs >= 1 && runs <= 100, "--runs", "must be in [1, 100], got " + runs);
        require(connections >= 1 && connections <= 64, "--connections", "must be in [1, 64], got " + connections);
        require(
                outstanding >= connections && outstanding <= 1024,
                "--outstanding",
                "must be in [--connections, 1024], got " + outstanding);
        require(objects >= 1 && objects <= 10_000_000, "--objects", "must be in [1, 10000000], got " + objects);
        require(
                objectSize >= 1 && objectSize <= 1 << 20,
                "--object-size",
                "must be in [1, 1048576], got " + objectSize);
        require(
                workMicros >= 0 && workMicros <= 10_000_000,
                "--work-us",
                "must be in [0, 10000000], got " + workMicros);
        if (warmupSeconds != null) {
            require(
                    warmupSeconds >= 0 && warmupSeconds <= 3600,
                    "--warmup",
                    "must be in [0, 3600], got " + warmupSeconds);
        }
        if (durationSeconds != null) {
            require(
                    durationSeconds >= 1 && durationSeconds <= 3600,
                    "--duration",
                    "must be in [1, 3600], got " + durationSeconds);
        }
    }

    private void require(boolean condition, String option, String message) {
        if (!condition) {
            throw new ParameterException(spec.commandLine(), option + ": " + message);
        }
    }

    private DeployedPoint measure(int run, String system, boolean durable, double warmup, double duration)
            throws Exception {
        String label = durable ? system + "-" + DURABLE : system;
        Path dir = output.resolve("run" + run + "-" + label.replace('/', '-'));
        SystemSpec parsed = SystemSpec.parse(system);
        boolean legacyClient = parsed.legacyClient();
        system = parsed.base();
        try (ChildJvms jvms = new ChildJvms(dir)) {
            List<String> names = new ArrayList<>();
            List<String> loadArgs = new ArrayList<>();
            ReplicaProbe probe = null;
            if (system.startsWith("ratis-")) {
                startRatis(jvms, dir, RatisProcesses.Rpc.parse(system.substring("ratis-".length())), names, loadArgs);
            } else if (system.equals(UNREPLICATED)) {
                startUnreplicated(jvms, names, loadArgs);
            } else {
                Path config = ShippedConfig.write(
                        configDir, system, dir, durable ? dir.resolve("storage") : null, parsed.tls(), threads);
                ClusterConfig cluster = ClusterConfig.load(config);
                probe = new ReplicaProbe(cluster);
                for (int node : probe.nodes()) {
                    jvms.start(
                            "node-" + node,
                            replicaJvm,
                            "io.eve.samples.cli.EveKv",
                            List.of(
                                    "replica",
                                    "--config",
                                    config.toString(),
                                    "--node",
                                    Integer.toString(node),
                                    "--objects",
                                    Integer.toString(objects),
                                    "--object-size",
                                    Integer.toString(objectSize),
                                    "--work-us",
                                    Long.toString(workMicros),
                                    "--status-every-ms",
                                    "5000"));
                    names.add("node-" + node);
                }
                if (!probe.awaitAnswering(START_LIMIT)) {
                    throw new IllegalStateException("the " + system + " replicas did not all answer /status within "
                            + START_LIMIT + "; logs in " + dir);
                }
                loadArgs.addAll(List.of("--target", "eve", "--config", config.toString()));
                loadArgs.addAll(List.of("--eve-client", legacyClient ? "legacy" : "session"));
            }
            loadArgs.addAll(List.of(
                    "--connections", Integer.toString(connections),
                    "--outstanding", Integer.toString(outstanding),
                    "--objects", Integer.toString(objects),
                    "--warmup", Double.toString(warmup),
                    "--duration", Double.toString(duration)));
            Process load = jvms.startPiped("load", loadJvm, DeployedLoad.class.getName(), loadArgs);
            names.add("load");
            return drive(run, label, jvms, names, load, probe, dir);
        }
    }

    /** {@code --threads}, or the shipped {@value #THREADS_PROFILE} profile's {@code executor.threads}. */
    private int executionThreads() {
        return threads != null
                ? threads
                : ClusterConfig.load(configDir.resolve(THREADS_PROFILE + ".properties"))
                        .executorThreads();
    }

    private void startUnreplicated(ChildJvms jvms, List<String> names, List<String> loadArgs) throws IOException {
        int port = ReplicaLaunch.freePorts(1)[0];
        jvms.start(
                "node-0",
                replicaJvm,
                UnreplicatedServer.class.getName(),
                List.of(
                        "--port", Integer.toString(port),
                        "--objects", Integer.toString(objects),
                        "--object-size", Integer.toString(objectSize),
                        "--work-us", Long.toString(workMicros),
                        "--threads", Integer.toString(executionThreads())));
        names.add("node-0");
        loadArgs.addAll(List.of("--target", UNREPLICATED, "--server", "127.0.0.1:" + port));
    }

    private void startRatis(ChildJvms jvms, Path dir, RatisProcesses.Rpc rpc, List<String> names, List<String> loadArgs)
            throws IOException {
        List<String> peers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            try (ServerSocket socket = new ServerSocket(0)) {
                peers.add("n" + i + "@127.0.0.1:" + socket.getLocalPort());
            }
        }
        String peerList = String.join(",", peers);
        String group = UUID.randomUUID().toString();
        for (int i = 0; i < 3; i++) {
            jvms.start(
                    "node-" + i,
                    replicaJvm,
                    RatisProcesses.class.getName(),
                    List.of(
                            "--id", "n" + i,
                            "--peers", peerList,
                            "--group", group,
                            "--rpc", rpc.key(),
                            "--objects", Integer.toString(objects),
                            "--object-size", Integer.toString(objectSize),
                            "--work-us", Long.toString(workMicros),
                            "--storage", dir.resolve("ratis-n" + i).toString()));
            names.add("node-" + i);
        }
        loadArgs.addAll(List.of("--target", "ratis-" + rpc.key(), "--ratis-peers", peerList, "--ratis-group", group));
    }

    /** Reads the load JVM's phase lines, snapshotting every process's CPU and the replicas' status at each. */
    private DeployedPoint drive(
            int run, String system, ChildJvms jvms, List<String> names, Process load, ReplicaProbe probe, Path dir)
            throws Exception {
        List<Process> processes = jvms.processes();
        long[] cpuStart = null;
        long[] cpuEnd = null;
        long[] statusStart = null;
        long[] statusEnd = null;
        DeployedLoad.LoadResult result = null;
        try (BufferedReader lines =
                new BufferedReader(new InputStreamReader(load.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                if (line.equals(DeployedLoad.MEASURE_START)) {
                    cpuStart = cpu(processes);
                    statusStart = status(probe);
                } else if (line.equals(DeployedLoad.MEASURE_END)) {
                    cpuEnd = cpu(processes);
                    statusEnd = status(probe);
                } else if (line.startsWith(DeployedLoad.RESULT)) {
                    result = Json.mapper()
                            .readValue(line.substring(DeployedLoad.RESULT.length()), DeployedLoad.LoadResult.class);
                }
            }
        }
        int exit = load.waitFor();
        if (result == null || cpuStart == null || cpuEnd == null) {
            throw new IllegalStateException("the load JVM of " + system + " ended (exit " + exit
                    + ") without a measurement; see " + dir.resolve("load.log"));
        }
        Map<String, Double> cpu = new LinkedHashMap<>();
        for (int i = 0; i < names.size(); i++) {
            cpu.put(names.get(i), DeployedPoint.microsPerRequest(cpuEnd[i] - cpuStart[i], result.requests()));
        }
        String check = system.equals(UNREPLICATED) ? "not audited (one server)" : "not audited (Ratis)";
        List<String> exited = new ArrayList<>();
        for (int i = 0; i < processes.size(); i++) {
            if (processes.get(i) != load && !processes.get(i).isAlive()) {
                exited.add(names.get(i) + " (exit " + processes.get(i).exitValue() + ")");
            }
        }
        if (!exited.isEmpty()) {
            check = "EXITED during the run: " + String.join(", ", exited) + "; logs in " + dir;
        } else if (probe != null) {
            ReplicaProbe.Audit audit = probe.awaitEqualRoots(Duration.ofSeconds(30));
            check = audit.agreed() ? "equal roots at batch " + audit.seq() : audit.describe();
        }
        return new DeployedPoint(
                run,
                system,
                result.requests() / result.seconds(),
                result.requests(),
                result.seconds(),
                result.errors(),
                result.p50Nanos() / 1e3,
                result.p99Nanos() / 1e3,
                result.p999Nanos() / 1e3,
                cpu,
                DeployedPoint.microsPerRequest(result.driverCpuNanos(), result.requests()),
                statusStart == null ? -1 : statusEnd[0] - statusStart[0],
                statusEnd == null ? -1 : statusEnd[0],
                statusStart == null ? -1 : statusEnd[1] - statusStart[1],
                result.firstError() == null ? check : check + "; first error: " + result.firstError(),
                loadAverage(),
                Double.NaN,
                Double.NaN);
    }

    private static long[] cpu(List<Process> processes) {
        long[] nanos = new long[processes.size()];
        for (int i = 0; i < nanos.length; i++) {
            nanos[i] = ProcessCpu.nanos(processes.get(i).toHandle());
        }
        return nanos;
    }

    /** {highest view, summed rollbacks} over the replicas that answer, or null for Ratis. */
    private static long[] status(ReplicaProbe probe) throws InterruptedException {
        if (probe == null) {
            return null;
        }
        long view = 0;
        long rollbacks = 0;
        for (int node : probe.nodes()) {
            Optional<ReplicaProbe.Status> status = probe.status(node);
            if (status.isPresent()) {
                view = Math.max(view, status.get().view());
                rollbacks += status.get().rollbacks();
            }
        }
        return new long[] {view, rollbacks};
    }

    static String row(DeployedPoint p) {
        StringBuilder cpu = new StringBuilder();
        p.cpuMicrosPerRequest()
                .forEach((name, micros) -> cpu.append(String.format(Locale.ROOT, " %s %.1f", name, micros)));
        return String.format(
                Locale.ROOT,
                "run %d %-22s %,9.0f req/s  p50 %7.0f us  p99 %7.0f us  p99.9 %7.0f us  errors %d  CPU us/req:%s"
                        + " (driver %.1f)  view changes %s  rollbacks %s  load %.1f  %s",
                p.run(),
                p.system(),
                p.requestsPerSecond(),
                p.p50Micros(),
                p.p99Micros(),
                p.p999Micros(),
                p.errors(),
                cpu,
                p.driverCpuMicrosPerRequest(),
                p.eve() ? p.viewChanges() + " (view " + p.viewAtEnd() + " at end)" : "n/a",
                p.eve() ? Long.toString(p.rollbacks()) : "n/a",
                p.loadAverage(),
                p.check());
    }

    private void printSummary() {
        boolean baseline = points.stream().anyMatch(DeployedPoint::unreplicated);
        out.printf(
                "%n%-22s %12s %22s %10s %16s %10s %10s%s%n",
                "system",
                "median req/s",
                "min..max req/s",
                "/ Ratis",
                "min..max / Ratis",
                "p50 us",
                "p99 us",
                baseline ? String.format("%10s %16s", "/ unrepl.", "min..max") : "");
        List<DeployedSummary.Spread> rps = DeployedSummary.spread(points, DeployedPoint::requestsPerSecond);
        List<DeployedSummary.Spread> ratio = DeployedSummary.spread(points, DeployedPoint::ratioToRatis);
        List<DeployedSummary.Spread> toBase = DeployedSummary.spread(points, DeployedPoint::ratioToUnreplicated);
        List<DeployedSummary.Spread> p50 = DeployedSummary.spread(points, DeployedPoint::p50Micros);
        List<DeployedSummary.Spread> p99 = DeployedSummary.spread(points, DeployedPoint::p99Micros);
        for (int i = 0; i < rps.size(); i++) {
            out.printf(
                    Locale.ROOT,
                    "%-22s %,12.0f %,10.0f..%-,10.0f %10.2f %7.2f..%-7.2f %10.0f %10.0f%s%n",
                    rps.get(i).system(),
                    rps.get(i).median(),
                    rps.get(i).min(),
                    rps.get(i).max(),
                    ratio.get(i).median(),
                    ratio.get(i).min(),
                    ratio.get(i).max(),
                    p50.get(i).median(),
                    p99.get(i).median(),
                    baseline
                            ? String.format(
                                    Locale.ROOT,
                                    " %10.2f %7.2f..%-7.2f",
                                    toBase.get(i).median(),
                                    toBase.get(i).min(),
                                    toBase.get(i).max())
                            : "");
        }
        List<DeployedSummary.DurableRatio> ratios = DeployedSummary.durableRatios(points, DURABLE);
        if (!ratios.isEmpty()) {
            out.printf("%ndurable / in-memory, same run (storage.sync=batch)%n");
            for (DeployedSummary.DurableRatio r : ratios) {
                out.printf(Locale.ROOT, "run %d %-14s %.2f%n", r.run(), r.profile(), r.ratio());
            }
            for (DeployedSummary.Spread spread : DeployedSummary.spreadOfRatios(ratios)) {
                out.printf(
                        Locale.ROOT,
                        "%-14s median %.2f, %.2f..%.2f over %d run(s)%n",
                        spread.system(),
                        spread.median(),
                        spread.min(),
                        spread.max(),
                        spread.runs());
            }
        }
    }

    private static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    /**
     * One {@code --systems} entry: a system of {@link #SYSTEMS} and, for Eve's, the suffixes {@link #LEGACY_CLIENT}
     * and {@link #TLS} in any order (the legacy client has no TLS, so not both).
     */
    record SystemSpec(String base, boolean legacyClient, boolean tls) {
        static SystemSpec parse(String name) {
            String[] parts = name.split("/", -1);
            String base = parts[0];
            if (!KNOWN_SYSTEMS.contains(base)) {
                throw new IllegalArgumentException("unknown system '" + name + "'; expected of " + KNOWN_SYSTEMS
                        + ", Eve's also with " + LEGACY_CLIENT + " or " + TLS);
            }
            boolean legacy = false;
            boolean tls = false;
            for (int i = 1; i < parts.length; i++) {
                String suffix = "/" + parts[i];
                if (!isEveProfile(base)) {
                    throw new IllegalArgumentException(
                            "'" + name + "': " + suffix + " applies to Eve's systems only, not to " + base);
                }
                if (suffix.equals(LEGACY_CLIENT) && !legacy) {
                    legacy = true;
                } else if (suffix.equals(TLS) && !tls) {
                    tls = true;
                } else {
                    throw new IllegalArgumentException("'" + name + "': unknown or repeated suffix " + suffix
                            + "; expected " + LEGACY_CLIENT + " or " + TLS + ", each at most once");
                }
            }
            if (legacy && tls) {
                throw new IllegalArgumentException(
                        "'" + name + "': the legacy client has no TLS; use " + TLS + " with the shared client");
            }
            return new SystemSpec(base, legacy, tls);
        }

        /** Whether this is one of Eve's profiles, run from a shipped configuration. */
        boolean eve() {
            return isEveProfile(base);
        }
    }

    /**
     * Whether {@code system} (a name as given to {@code --systems}, or a point's, suffixes included) is one of
     * Eve's profiles rather than Ratis or the unreplicated baseline.
     */
    static boolean isEveProfile(String system) {
        return !system.startsWith("ratis-") && !system.startsWith(UNREPLICATED);
    }
}
