package io.eve.bench.deployed;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The arithmetic of a deployed run: each point's ratio to the best Ratis point (gRPC or Netty) of the same run,
 * and per system the median and spread over the runs. Stateless.
 */
public final class DeployedSummary {
    private DeployedSummary() {}

    /**
     * Median, lowest and highest of one measure of one system over the runs.
     *
     * @param system the system
     * @param runs how many points went in
     */
    public record Spread(String system, int runs, double median, double min, double max) {}

    /**
     * {@code points} with their ratios set: requests/s over the highest requests/s of a Ratis point of the same
     * run, and over the unreplicated point of the same run; NaN where the run has no such point. Order is kept.
     */
    public static List<DeployedPoint> withRatios(List<DeployedPoint> points) {
        Map<Integer, Double> bestRatis = new LinkedHashMap<>();
        Map<Integer, Double> unreplicated = new LinkedHashMap<>();
        for (DeployedPoint p : points) {
            if (p.ratis()) {
                bestRatis.merge(p.run(), p.requestsPerSecond(), Math::max);
            } else if (p.unreplicated()) {
                unreplicated.merge(p.run(), p.requestsPerSecond(), Math::max);
            }
        }
        List<DeployedPoint> rated = new ArrayList<>();
        for (DeployedPoint p : points) {
            rated.add(p.withRatios(
                    ratio(p.requestsPerSecond(), bestRatis.get(p.run())),
                    ratio(p.requestsPerSecond(), unreplicated.get(p.run()))));
        }
        return rated;
    }

    private static double ratio(double value, Double base) {
        return base == null || base <= 0 ? Double.NaN : value / base;
    }

    /** Per system, in first-seen order, the spread of {@code measure} over its points (NaN values skipped). */
    public static List<Spread> spread(
            List<DeployedPoint> points, java.util.function.ToDoubleFunction<DeployedPoint> measure) {
        Map<String, List<DeployedPoint>> bySystem = points.stream()
                .collect(Collectors.groupingBy(DeployedPoint::system, LinkedHashMap::new, Collectors.toList()));
        List<Spread> spreads = new ArrayList<>();
        for (Map.Entry<String, List<DeployedPoint>> e : bySystem.entrySet()) {
            double[] values = e.getValue().stream()
                    .mapToDouble(measure)
                    .filter(v -> !Double.isNaN(v))
                    .sorted()
                    .toArray();
            spreads.add(
                    values.length == 0
                            ? new Spread(e.getKey(), 0, Double.NaN, Double.NaN, Double.NaN)
                            : new Spread(
                                    e.getKey(), values.length, median(values), values[0], values[values.length - 1]));
        }
        return spreads;
    }

    /**
     * A durable point's requests/s over the in-memory point's of the same profile and run.
     *
     * @param run the run
     * @param profile the profile (the in-memory point's system)
     * @param ratio durable over in-memory requests/s
     */
    public record DurableRatio(int run, String profile, double ratio) {}

    /**
     * For each point named {@code <profile>-<suffix>}, its ratio to the point {@code <profile>} of the same run,
     * in the order of the durable points; a durable point without its in-memory twin is left out.
     */
    public static List<DurableRatio> durableRatios(List<DeployedPoint> points, String suffix) {
        Map<String, Double> inMemory = new LinkedHashMap<>();
        for (DeployedPoint p : points) {
            inMemory.put(p.run() + " " + p.system(), p.requestsPerSecond());
        }
        List<DurableRatio> ratios = new ArrayList<>();
        for (DeployedPoint p : points) {
            if (p.system().endsWith("-" + suffix)) {
                String profile = p.system().substring(0, p.system().length() - suffix.length() - 1);
                Double base = inMemory.get(p.run() + " " + profile);
                if (base != null && base > 0) {
                    ratios.add(new DurableRatio(p.run(), profile, p.requestsPerSecond() / base));
                }
            }
        }
        return ratios;
    }

    /** Per profile, in first-seen order, the median and spread of its durable ratios over the runs. */
    public static List<Spread> spreadOfRatios(List<DurableRatio> ratios) {
        Map<String, List<Double>> byProfile = new LinkedHashMap<>();
        for (DurableRatio r : ratios) {
            byProfile.computeIfAbsent(r.profile(), k -> new ArrayList<>()).add(r.ratio());
        }
        List<Spread> spreads = new ArrayList<>();
        byProfile.forEach((profile, values) -> {
            double[] sorted =
                    values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            spreads.add(new Spread(profile, sorted.length, median(sorted), sorted[0], sorted[sorted.length - 1]));
        });
        return spreads;
    }

    /** The median of sorted {@code values} (the mean of the middle two for an even count). */
    static double median(double[] sorted) {
        if (sorted.length == 0) {
            throw new IllegalArgumentException("the median of no values");
        }
        double[] copy = Arrays.copyOf(sorted, sorted.length);
        Arrays.sort(copy);
        int n = copy.length;
        return n % 2 == 1 ? copy[n / 2] : (copy[n / 2 - 1] + copy[n / 2]) / 2;
    }
}
