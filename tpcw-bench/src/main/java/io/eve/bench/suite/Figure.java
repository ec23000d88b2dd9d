package io.eve.bench.suite;

import io.eve.samples.kv.WorkKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The named sweeps of the suite, after Eve §7.2: {@code threads} (Fig. 4, speedup against execution
 * threads for 0.1, 1 and 10 ms of work), {@code size} (Fig. 5, objects of 10 B, 1 KB and 10 KB),
 * {@code conflict} (Figs. 6 and 7, throughput against the pairwise conflict probability with mixer false
 * negatives and false positives), {@code peer} (zero-work throughput beside Apache Ratis) and
 * {@code custom} (the cross product of whatever the command line gives). Each supplies default values
 * that the command line may override.
 */
enum Figure {
    THREADS,
    SIZE,
    CONFLICT,
    PEER,
    CUSTOM;

    private static final List<String> SCALING_MODES =
            List.of(Modes.UNREPLICATED_SEQUENTIAL, Modes.UNREPLICATED, "sequential-replication", "eve-pb");
    static final String NO_MIXER_ERRORS = "no mixer errors";

    /** This figure's values, before command-line overrides. */
    Sweep defaults() {
        List<Integer> threads = List.of(1, 2, 4, 8, 16);
        List<Double> none = List.of(0.0);
        Duration second = Duration.ofSeconds(1);
        Duration measured = Duration.ofSeconds(3);
        switch (this) {
            case THREADS:
                return new Sweep(
                        SCALING_MODES,
                        threads,
                        List.of(100L, 1_000L, 10_000L),
                        WorkKind.BLOCKING,
                        List.of(1024),
                        List.of(10_000),
                        none,
                        none,
                        128,
                        64,
                        second,
                        measured);
            case SIZE:
                return new Sweep(
                        SCALING_MODES,
                        threads,
                        List.of(1_000L),
                        WorkKind.BLOCKING,
                        List.of(10, 1024, 10240),
                        List.of(10_000),
                        none,
                        none,
                        128,
                        64,
                        second,
                        measured);
            case CONFLICT:
                return new Sweep(
                        List.of(Modes.UNREPLICATED_SEQUENTIAL, "eve-pb"),
                        List.of(16),
                        List.of(1_000L),
                        WorkKind.BLOCKING,
                        List.of(1024),
                        List.of(10_000, 1_000, 100, 10),
                        List.of(0.0, 0.01, 0.1, 1.0),
                        List.of(0.0, 0.01, 0.1, 0.5),
                        128,
                        64,
                        second,
                        measured);
            case PEER:
                return new Sweep(
                        List.of(
                                Modes.UNREPLICATED_SEQUENTIAL,
                                Modes.UNREPLICATED,
                                "eve-pb",
                                "eve-pb-netty",
                                "eve-crash",
                                "eve-crash-netty",
                                "eve-bft",
                                "eve-bft-netty",
                                "ratis"),
                        List.of(4),
                        List.of(0L),
                        WorkKind.CPU,
                        List.of(1024),
                        List.of(10_000),
                        none,
                        none,
                        64,
                        64,
                        Duration.ofSeconds(2),
                        Duration.ofSeconds(5));
            default:
                return new Sweep(
                        SCALING_MODES,
                        threads,
                        List.of(1_000L),
                        WorkKind.BLOCKING,
                        List.of(1024),
                        List.of(10_000),
                        none,
                        none,
                        128,
                        64,
                        second,
                        measured);
        }
    }

    /** The points to measure, in order. */
    List<PlannedPoint> plan(Sweep sweep, Map<String, Mode> modes) {
        return this == CONFLICT ? conflictPlan(sweep, modes) : crossProduct(sweep, modes);
    }

    private static List<PlannedPoint> crossProduct(Sweep sweep, Map<String, Mode> modes) {
        List<PlannedPoint> points = new ArrayList<>();
        for (long work : sweep.workMicros()) {
            for (int size : sweep.objectSizes()) {
                for (int objects : sweep.objects()) {
                    for (double fn : sweep.falseNegativeRates()) {
                        for (double fp : sweep.falsePositiveRates()) {
                            String suffix = suffix(sweep, work, size, objects, fn, fp);
                            for (String id : sweep.modes()) {
                                Mode mode = modes.get(id);
                                List<Integer> threads = mode.usesThreads() ? sweep.threads() : List.of(1);
                                for (int t : threads) {
                                    Workload workload = sweep.workload(t, work, size, objects, fn, fp);
                                    points.add(new PlannedPoint(mode.label() + suffix, mode, workload, t));
                                }
                            }
                        }
                    }
                }
            }
        }
        return points;
    }

    /** Names the swept values that vary, so each line of a plot is one combination. */
    private static String suffix(Sweep sweep, long work, int size, int objects, double fn, double fp) {
        StringBuilder suffix = new StringBuilder();
        if (sweep.workMicros().size() > 1) {
            suffix.append(", ").append(work >= 1000 ? work / 1000.0 + " ms" : work + " us");
        }
        if (sweep.objectSizes().size() > 1) {
            suffix.append(", ").append(size).append(" B objects");
        }
        if (sweep.objects().size() > 1) {
            suffix.append(", ").append(objects).append(" objects");
        }
        if (sweep.falseNegativeRates().size() > 1) {
            suffix.append(", FN ").append(fn);
        }
        if (sweep.falsePositiveRates().size() > 1) {
            suffix.append(", FP ").append(fp);
        }
        return suffix.toString();
    }

    /**
     * Figs. 6 and 7: Eve at the largest thread count for every conflict probability, once per
     * false-negative rate and once per non-zero false-positive rate; the other modes once, at the first
     * object count (the sequential baseline does not depend on conflicts).
     */
    private static List<PlannedPoint> conflictPlan(Sweep sweep, Map<String, Mode> modes) {
        List<PlannedPoint> points = new ArrayList<>();
        long work = sweep.workMicros().get(0);
        int size = sweep.objectSizes().get(0);
        int threads = sweep.maxThreads();
        for (String id : sweep.modes()) {
            Mode mode = modes.get(id);
            if (!id.startsWith("eve")) {
                int objects = sweep.objects().get(0);
                int t = mode.usesThreads() ? threads : 1;
                points.add(new PlannedPoint(
                        mode.label(), mode, sweep.workload(t, work, size, objects, 0, 0), 100.0 / objects));
                continue;
            }
            for (int objects : sweep.objects()) {
                double x = 100.0 / objects;
                for (double fn : sweep.falseNegativeRates()) {
                    String series = fn == 0 ? NO_MIXER_ERRORS : "false negatives " + percent(fn);
                    points.add(new PlannedPoint(series, mode, sweep.workload(threads, work, size, objects, fn, 0), x));
                }
                for (double fp : sweep.falsePositiveRates()) {
                    if (fp > 0) {
                        String series = "false positives " + percent(fp);
                        points.add(
                                new PlannedPoint(series, mode, sweep.workload(threads, work, size, objects, 0, fp), x));
                    }
                }
            }
        }
        return points;
    }

    static String percent(double rate) {
        double p = rate * 100;
        return (p == Math.rint(p) ? String.valueOf((long) p) : String.valueOf(p)) + "%";
    }
}
