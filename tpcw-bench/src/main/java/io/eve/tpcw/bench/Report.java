package io.eve.tpcw.bench;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Writes a run's settings and results as JSON (no library: flat records of numbers and strings). */
public final class Report {
    private Report() {}

    /** The JSON document for {@code results} measured with {@code settings} on {@code date}. */
    public static String toJson(BenchmarkSettings settings, List<ModeResult> results, String date) {
        StringBuilder json = new StringBuilder("{\n");
        field(json, 1, "benchmark", quote("TPC-W on H2")).append(",\n");
        field(json, 1, "date", quote(date)).append(",\n");
        field(json, 1, "mix", quote(settings.mix().name().toLowerCase(Locale.ROOT)))
                .append(",\n");
        field(json, 1, "items", settings.scale().items()).append(",\n");
        field(json, 1, "customers", settings.scale().customers()).append(",\n");
        field(json, 1, "browsers", settings.browsers()).append(",\n");
        field(json, 1, "thinkMillis", settings.thinkMillis()).append(",\n");
        field(json, 1, "warmupSeconds", settings.warmupSeconds()).append(",\n");
        field(json, 1, "seconds", settings.seconds()).append(",\n");
        field(json, 1, "seed", settings.seed()).append(",\n");
        field(json, 1, "cartPartitions", settings.cartPartitions()).append(",\n");
        field(json, 1, "maxBatch", settings.maxBatch()).append(",\n");
        field(json, 1, "availableProcessors", Runtime.getRuntime().availableProcessors())
                .append(",\n");
        field(json, 1, "cpuNote", quote("process CPU time of the one JVM: driver and, for eve, both replicas"))
                .append(",\n");
        json.append("  \"results\": [\n");
        for (int i = 0; i < results.size(); i++) {
            result(json, results.get(i));
            json.append(i + 1 < results.size() ? ",\n" : "\n");
        }
        return json.append("  ]\n}\n").toString();
    }

    private static void result(StringBuilder json, ModeResult r) {
        json.append("    {\n");
        field(json, 3, "mode", quote(r.mode())).append(",\n");
        field(json, 3, "threads", r.threads()).append(",\n");
        field(json, 3, "throughput", number(r.throughput())).append(",\n");
        field(json, 3, "p50Millis", number(r.p50Millis())).append(",\n");
        field(json, 3, "p99Millis", number(r.p99Millis())).append(",\n");
        field(json, 3, "cpuMicrosPerRequest", number(r.cpuMicrosPerRequest())).append(",\n");
        field(json, 3, "rollbacks", r.rollbacks()).append(",\n");
        field(json, 3, "meanParallelBatch", number(r.meanParallelBatch())).append(",\n");
        field(json, 3, "meanBatch", number(r.meanBatch())).append(",\n");
        field(json, 3, "acknowledged", r.acknowledged()).append(",\n");
        field(json, 3, "committed", r.committed()).append(",\n");
        field(json, 3, "errors", r.errors()).append(",\n");
        field(json, 3, "rootsAgree", r.roots().agreed()).append(",\n");
        field(json, 3, "rootDetail", quote(r.roots().detail())).append(",\n");
        field(json, 3, "invariantViolations", r.invariants().size()).append(",\n");
        field(json, 3, "healthy", r.healthy()).append(",\n");
        json.append("      \"sent\": {");
        int i = 0;
        for (Map.Entry<String, Long> e : new java.util.TreeMap<>(r.realisedMix()).entrySet()) {
            json.append(i++ == 0 ? "" : ", ")
                    .append(quote(e.getKey()))
                    .append(": ")
                    .append(e.getValue());
        }
        json.append("}\n    }");
    }

    private static StringBuilder field(StringBuilder json, int depth, String name, Object value) {
        return json.append("  ".repeat(depth)).append(quote(name)).append(": ").append(value);
    }

    private static String number(double value) {
        return String.format(Locale.ROOT, "%.3f", value);
    }

    private static String quote(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
