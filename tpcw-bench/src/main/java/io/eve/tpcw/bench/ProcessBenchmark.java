package io.eve.tpcw.bench;

import io.eve.bench.harness.Progress;
import io.eve.tpcw.TpcwSettings;
import io.eve.tpcw.driver.Mix;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * TPC-W's multi-process mode: in each run, sequential unreplicated H2 (one thread, in this JVM), then each
 * profile as replica JVMs ({@link ProcessCluster}) driven from this JVM over TCP ({@link ClusterLoad}). The
 * ratio per replica core is {@code eve / (sequential * executorThreads)}: what one execution thread of a
 * replica delivers against one thread of plain H2 (docs/benchmarks.md). Prints a row per point and the
 * median and spread over the runs. Called from one thread.
 */
public final class ProcessBenchmark {
    private final Settings settings;
    private final PrintStream out;
    private final PrintStream err;

    /**
     * @param profiles the profiles to run, in order
     * @param executorThreads execution threads per replica
     * @param runs how many times the whole sequence runs
     * @param out where the configurations and logs of the replica processes go
     */
    public record Settings(
            TpcwSettings tpcw,
            Mix mix,
            int browsers,
            double warmupSeconds,
            double seconds,
            List<String> profiles,
            int executorThreads,
            int runs,
            List<String> jvmOptions,
            Path out) {}

    /** One measured point. */
    record Point(int run, String mode, double throughput, double ratio, ClusterLoad.Result result, double load) {}

    public ProcessBenchmark(Settings settings, PrintStream out, PrintStream err) {
        this.settings = settings;
        this.out = out;
        this.err = err;
    }

    /** Runs every point; true if every Eve point was healthy (no error reply, equal roots). */
    public boolean run() throws Exception {
        out.printf(
                Locale.ROOT,
                "TPC-W %s mix as processes: %,d items, %,d customers, %d browsers, think 0, %.0f s per point"
                        + " after %.0f s warm-up, %d executor thread(s) per replica, %d run(s), %d cores%n",
                settings.mix().name().toLowerCase(Locale.ROOT),
                settings.tpcw().scale().items(),
                settings.tpcw().scale().customers(),
                settings.browsers(),
                settings.seconds(),
                settings.warmupSeconds(),
                settings.executorThreads(),
                settings.runs(),
                Runtime.getRuntime().availableProcessors());
        List<Point> points = new ArrayList<>();
        for (int run = 1; run <= settings.runs(); run++) {
            double sequential = sequential(run);
            points.add(new Point(run, "sequential", sequential, 1.0 / settings.executorThreads(), null, loadAverage()));
            print(points.get(points.size() - 1));
            for (String profile : settings.profiles()) {
                ClusterLoad.Result result = replicated(run, profile);
                double ratio = result.throughput() / (sequential * settings.executorThreads());
                points.add(new Point(run, profile, result.throughput(), ratio, result, loadAverage()));
                print(points.get(points.size() - 1));
            }
        }
        summarise(points);
        return points.stream().allMatch(p -> p.result() == null || p.result().healthy());
    }

    private double sequential(int run) throws Exception {
        LoadDriver driver = driver(LoadDriver.FIRST_CLIENT);
        try (PlainTarget target = new PlainTarget(
                        "jdbc:h2:mem:tpcw-processes-sequential-" + run,
                        settings.tpcw().scale(),
                        settings.tpcw().seed(),
                        1);
                Progress progress = Progress.timed(err)) {
            return driver.run(
                            target,
                            settings.warmupSeconds(),
                            settings.seconds(),
                            progress,
                            "run " + run + ", sequential H2")
                    .throughput();
        }
    }

    private ClusterLoad.Result replicated(int run, String profile) throws Exception {
        Path dir = settings.out().resolve("run" + run + "-" + profile);
        Path config = ProcessCluster.writeConfig(dir, profile, settings.executorThreads(), settings.tpcw());
        try (ProcessCluster cluster = ProcessCluster.start(config, settings.jvmOptions())) {
            return ClusterLoad.run(
                    cluster.cluster(),
                    new ClusterLoad.Settings(
                            settings.mix(),
                            settings.browsers(),
                            settings.warmupSeconds(),
                            settings.seconds(),
                            0,
                            settings.tpcw().seed(),
                            LoadDriver.FIRST_CLIENT),
                    err);
        }
    }

    private LoadDriver driver(long firstClient) {
        return new LoadDriver(
                settings.tpcw().scale(),
                settings.mix(),
                settings.browsers(),
                settings.tpcw().seed(),
                0,
                firstClient);
    }

    private void print(Point p) {
        ClusterLoad.Result r = p.result();
        out.printf(
                Locale.ROOT,
                "run %d %-15s %,9.0f inter./s  ratio/core %5.2f  load %5.1f%s%n",
                p.run(),
                p.mode(),
                p.throughput(),
                p.ratio(),
                p.load(),
                r == null
                        ? ""
                        : String.format(
                                Locale.ROOT,
                                "  p50 %.2f ms  p99 %.2f ms  errors %d  rollbacks %d  view %d  %s",
                                r.p50Millis(),
                                r.p99Millis(),
                                r.errors(),
                                r.rollbacks(),
                                r.view(),
                                r.audit().agreed()
                                        ? "equal roots at batch " + r.audit().seq()
                                        : r.audit().describe()));
    }

    private void summarise(List<Point> points) {
        out.printf("%n%-15s %12s %22s %10s %18s%n", "mode", "median /s", "min..max /s", "ratio/core", "min..max ratio");
        List<String> modes = new ArrayList<>(List.of("sequential"));
        modes.addAll(settings.profiles());
        for (String mode : modes) {
            double[] throughput = points.stream()
                    .filter(p -> p.mode().equals(mode))
                    .mapToDouble(Point::throughput)
                    .sorted()
                    .toArray();
            double[] ratio = points.stream()
                    .filter(p -> p.mode().equals(mode))
                    .mapToDouble(Point::ratio)
                    .sorted()
                    .toArray();
            out.printf(
                    Locale.ROOT,
                    "%-15s %,12.0f %,10.0f..%,-10.0f %10.2f %8.2f..%-8.2f%n",
                    mode,
                    median(throughput),
                    throughput[0],
                    throughput[throughput.length - 1],
                    median(ratio),
                    ratio[0],
                    ratio[ratio.length - 1]);
        }
    }

    private static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** The system's load average over the last minute (every process on the machine, not only these). */
    private static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }
}
