package io.eve.tpcw.bench;

import io.eve.bench.harness.Progress;
import io.eve.tpcw.interaction.Interaction;
import java.io.PrintStream;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs one mix in every mode: unreplicated sequential (one thread), unreplicated with T threads, and Eve
 * primary-backup with T executor threads per replica, for each T; after each point it checks the
 * replicas' roots, the invariants and that every acknowledged interaction was committed. Prints a
 * table to {@code out} and a progress bar to {@code err}.
 */
public final class BenchmarkRunner {
    private static final AtomicInteger RUNS = new AtomicInteger();

    private final BenchmarkSettings settings;
    private final PrintStream out;
    private final PrintStream err;

    public BenchmarkRunner(BenchmarkSettings settings, PrintStream out, PrintStream err) {
        this.settings = settings;
        this.out = out;
        this.err = err;
    }

    /** Measures every point and returns the results in order. */
    public List<ModeResult> run() throws Exception {
        out.printf(
                "TPC-W %s mix on H2: %,d items, %,d customers, %d browsers, think %d ms, %.0f s per point%n",
                settings.mix().name().toLowerCase(java.util.Locale.ROOT),
                settings.scale().items(),
                settings.scale().customers(),
                settings.browsers(),
                settings.thinkMillis(),
                settings.seconds());
        List<ModeResult> results = new ArrayList<>();
        int points = 1 + 3 * settings.threads().size() - (settings.threads().contains(1) ? 1 : 0);
        int point = 0;
        try (Progress progress = Progress.timed(err)) {
            String run = "tpcw" + RUNS.incrementAndGet();
            warmUpJit(progress, run);
            ModeResult sequential = measure("sequential", 1, ++point, points, progress, run);
            results.add(sequential);
            for (int threads : settings.threads()) {
                // Unreplicated with one thread is the sequential configuration: reuse that point.
                results.add(
                        threads == 1
                                ? copy(sequential, "unreplicated")
                                : measure("unreplicated", threads, ++point, points, progress, run));
                results.add(measure("eve", threads, ++point, points, progress, run));
                results.add(measure("eve-crash", threads, ++point, points, progress, run));
            }
        }
        printTable(results);
        return results;
    }

    /** An unrecorded run so the JIT has compiled the hot paths before the first measured point. */
    private void warmUpJit(Progress progress, String run) throws Exception {
        int threads =
                settings.threads().stream().mapToInt(Integer::intValue).max().orElse(1);
        LoadDriver driver = new LoadDriver(
                settings.scale(), settings.mix(), settings.browsers(), settings.seed(), settings.thinkMillis());
        try (Target target =
                new PlainTarget("jdbc:h2:mem:" + run + "-jit", settings.scale(), settings.seed(), threads)) {
            double seconds = Math.max(1, settings.warmupSeconds());
            driver.run(target, 0, seconds, progress, "JIT warm-up (not recorded)");
        }
    }

    private static ModeResult copy(ModeResult r, String mode) {
        return new ModeResult(
                mode,
                r.threads(),
                r.throughput(),
                r.p50Millis(),
                r.p99Millis(),
                r.cpuMicrosPerRequest(),
                r.rollbacks(),
                r.meanParallelBatch(),
                r.meanBatch(),
                r.acknowledged(),
                r.errors(),
                r.committed(),
                r.roots(),
                r.invariants(),
                r.realisedMix());
    }

    private ModeResult measure(String mode, int threads, int point, int points, Progress progress, String run)
            throws Exception {
        String name = run + "-" + mode + "-" + threads;
        LoadDriver driver = new LoadDriver(
                settings.scale(), settings.mix(), settings.browsers(), settings.seed(), settings.thinkMillis());
        String label = "[" + point + "/" + points + "] " + mode + ", " + threads + " thread" + (threads > 1 ? "s" : "");
        try (Target target = mode.equals("eve-crash")
                ? new CrashTarget(
                        name,
                        settings.scale(),
                        settings.seed(),
                        threads,
                        settings.cartPartitions(),
                        settings.maxBatch())
                : mode.equals("eve")
                        ? new EveTarget(
                                name,
                                settings.scale(),
                                settings.seed(),
                                threads,
                                settings.cartPartitions(),
                                settings.maxBatch())
                        : new PlainTarget("jdbc:h2:mem:" + name, settings.scale(), settings.seed(), threads)) {
            LoadDriver.Outcome outcome =
                    driver.run(target, settings.warmupSeconds(), settings.seconds(), progress, label);
            Target.RootCheck roots = target.checkRoots();
            List<String> invariants;
            try (Connection c = target.inspect()) {
                invariants = Invariants.check(c, settings.scale(), outcome.buyConfirmsCommitted());
            }
            return result(mode, threads, outcome, target.committed(), roots, invariants);
        }
    }

    private static ModeResult result(
            String mode,
            int threads,
            LoadDriver.Outcome o,
            long committed,
            Target.RootCheck roots,
            List<String> invariants) {
        double batched = o.after().batchedRequests() - o.before().batchedRequests();
        double parallel = o.after().parallelBatches() - o.before().parallelBatches();
        Map<String, Long> realised = new LinkedHashMap<>();
        for (Interaction interaction : Interaction.values()) {
            realised.put(interaction.title(), o.sent()[interaction.ordinal()]);
        }
        return new ModeResult(
                mode,
                threads,
                o.throughput(),
                o.p50Millis(),
                o.p99Millis(),
                o.windowCompleted() == 0 ? 0 : o.windowCpuNanos() / 1e3 / o.windowCompleted(),
                o.after().rollbacks() - o.before().rollbacks(),
                parallel == 0 ? 0 : batched / parallel,
                batched == 0
                        ? 0
                        : batched / Math.max(1, o.after().batches() - o.before().batches()),
                o.acknowledged(),
                o.errors(),
                committed,
                roots,
                invariants,
                realised);
    }

    private void printTable(List<ModeResult> results) {
        out.println();
        out.printf(
                "%-13s %7s %12s %8s %8s %11s %9s %8s %7s %s%n",
                "mode",
                "threads",
                "inter./s",
                "p50 ms",
                "p99 ms",
                "CPU us/req",
                "rollbacks",
                "par.batch",
                "errors",
                "checks");
        for (ModeResult r : results) {
            out.printf(
                    "%-13s %7d %,12.0f %8.2f %8.2f %,11.0f %9d %8.1f %7d %s%n",
                    r.mode(),
                    r.threads(),
                    r.throughput(),
                    r.p50Millis(),
                    r.p99Millis(),
                    r.cpuMicrosPerRequest(),
                    r.rollbacks(),
                    r.meanParallelBatch(),
                    r.errors(),
                    r.healthy()
                            ? "ok"
                            : "FAILED " + r.invariants() + " " + r.roots().detail());
        }
    }
}
