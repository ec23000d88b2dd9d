package io.eve.bench.suite;

import io.eve.bench.harness.Progress;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Runs a plan point by point (a fresh system each, started, driven, checked and closed), then works out
 * each point's speedup and CPU ratio against the baselines measured in the same run and prints a table.
 *
 * <p>Before the first measured point it can run each mode of the plan once, unmeasured, so that the JIT
 * has compiled that mode's paths with a profile of its own: without it the first replicated point of a
 * JVM ran about a quarter slower than the same point run again (18.2k against 23.5k requests/s at 0.1 ms,
 * measured 2026-11-25), even with 12 s of per-point warm-up, and a comparison depended on mode order.
 * Used by one thread.
 */
final class SuiteRunner {
    private static final Duration SETUP_ALLOWANCE = Duration.ofMillis(700);

    private final PrintStream out;
    private final ClientSide clientSide = new ClientSide();
    private final ClosedLoopDriver driver = new ClosedLoopDriver(clientSide);

    SuiteRunner(PrintStream out) {
        this.out = out;
    }

    /**
     * Runs {@code plan}; {@code jvmWarmup} is the unmeasured time given to each distinct mode first (zero
     * for none).
     */
    List<PointResult> run(List<PlannedPoint> plan, Duration jvmWarmup) throws Exception {
        List<PlannedPoint> warmups = jvmWarmup.isZero() ? List.of() : firstOfEachMode(plan, jvmWarmup);
        Duration planned = Duration.ZERO;
        for (PlannedPoint point : warmups) {
            planned = planned.plus(point.workload().duration()).plus(SETUP_ALLOWANCE);
        }
        for (PlannedPoint point : plan) {
            planned = planned.plus(point.workload().warmup())
                    .plus(point.workload().duration())
                    .plus(SETUP_ALLOWANCE);
        }
        List<PointResult> measured = new ArrayList<>();
        try (Progress progress = Progress.points(
                System.err, "kvsuite (about " + planned.toMinutes() + " min)", warmups.size() + plan.size())) {
            for (int i = 0; i < warmups.size(); i++) {
                PlannedPoint point = warmups.get(i);
                progress.onPoint(
                        i,
                        "JVM warm-up, " + point.mode().id() + " "
                                + point.workload().describe());
                PointResult warmup = measure(point); // discarded, but a broken mode stops the run here
                if (!warmup.check().ok()) {
                    throw new IllegalStateException(
                            "the JVM warm-up of mode " + point.mode().id()
                                    + " failed its end-of-point check ("
                                    + warmup.check().detail()
                                    + "); nothing was measured");
                }
            }
            for (int i = 0; i < plan.size(); i++) {
                PlannedPoint point = plan.get(i);
                progress.onPoint(
                        warmups.size() + i,
                        point.mode().id() + " " + point.workload().describe());
                measured.add(measure(point));
            }
        }
        List<PointResult> results = withBaselines(measured);
        printTable(results);
        return results;
    }

    /** The first point of every mode in plan order, run for {@code time} with no per-point warm-up. */
    static List<PlannedPoint> firstOfEachMode(List<PlannedPoint> plan, Duration time) {
        Map<String, PlannedPoint> first = new LinkedHashMap<>();
        for (PlannedPoint point : plan) {
            first.putIfAbsent(
                    point.mode().id(),
                    new PlannedPoint(
                            point.series(), point.mode(), point.workload().timed(Duration.ZERO, time), point.x()));
        }
        return List.copyOf(first.values());
    }

    private PointResult measure(PlannedPoint point) throws Exception {
        System.gc(); // the previous point's stores are garbage; collect them outside the measurement
        Workload workload = point.workload();
        ClosedLoopDriver.Measurement m;
        Mode.Check check;
        try (Mode.Running system = point.mode().start(workload, clientSide)) {
            m = driver.run(system, workload);
            check = system.check();
        }
        return new PointResult(
                point.series(),
                point.mode().id(),
                point.mode().label(),
                point.mode().executionReplicas(),
                workload,
                point.x(),
                m.requests(),
                m.seconds(),
                m.cpu().serverNanos(),
                m.cpu().serverThreadNanos(),
                m.cpu().clientNanos(),
                check,
                Double.NaN,
                Double.NaN);
    }

    /**
     * Speedup against the unreplicated sequential point with the same work and object size; CPU ratio
     * against the unreplicated point with the same work, object size and threads (the sequential one for
     * modes that execute sequentially).
     */
    static List<PointResult> withBaselines(List<PointResult> measured) {
        List<PointResult> results = new ArrayList<>();
        for (PointResult r : measured) {
            Optional<PointResult> sequential = find(measured, r, b -> b.modeId().equals(Modes.UNREPLICATED_SEQUENTIAL));
            Optional<PointResult> parallel = find(
                    measured,
                    r,
                    b -> b.modeId().equals(Modes.UNREPLICATED)
                            && b.workload().threads() == r.workload().threads());
            Optional<PointResult> cpuBase =
                    r.workload().threads() > 1 || r.modeId().equals(Modes.UNREPLICATED) ? parallel : sequential;
            double speedup = sequential
                    .map(b -> r.requestsPerSecond() / b.requestsPerSecond())
                    .orElse(Double.NaN);
            double cpuRatio = cpuBase.map(
                            b -> CpuAccounting.ratio(r.cpuMicrosPerRequest(), r.replicas(), b.cpuMicrosPerRequest()))
                    .orElse(Double.NaN);
            results.add(r.withBaselines(speedup, cpuRatio));
        }
        return results;
    }

    private static Optional<PointResult> find(List<PointResult> all, PointResult r, Predicate<PointResult> kind) {
        Predicate<PointResult> sameShape = b -> kind.test(b)
                && b.workload().workMicros() == r.workload().workMicros()
                && b.workload().workKind() == r.workload().workKind()
                && b.workload().objectSize() == r.workload().objectSize();
        Optional<PointResult> exact = all.stream()
                .filter(sameShape.and(
                        b -> b.workload().objects() == r.workload().objects()))
                .findFirst();
        return exact.isPresent() ? exact : all.stream().filter(sameShape).findFirst();
    }

    private void printTable(List<PointResult> results) {
        out.printf(
                "%-44s %-22s %4s %12s %8s %10s %8s  %s%n",
                "series", "mode", "T", "requests/s", "speedup", "cpu us/req", "cpu/base", "check");
        for (PointResult r : results) {
            out.printf(
                    "%-44s %-22s %4d %,12.0f %7.2fx %10.1f %8.2f  %s%n",
                    r.series(),
                    r.modeId(),
                    r.workload().threads(),
                    r.requestsPerSecond(),
                    r.speedup(),
                    r.cpuMicrosPerRequest(),
                    r.cpuRatio(),
                    r.check().detail());
        }
    }
}
