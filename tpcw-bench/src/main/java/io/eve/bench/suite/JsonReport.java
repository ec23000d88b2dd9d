package io.eve.bench.suite;

import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * The JSON of one run: the figure, the machine, and one object per measured point with its settings,
 * throughput, CPU accounting and check. Written by hand (the suite needs no JSON library); NaN becomes
 * {@code null}. Stateless.
 */
final class JsonReport {
    private JsonReport() {}

    static String render(String figure, Instant when, List<PointResult> results) {
        StringBuilder json = new StringBuilder("{\n");
        field(json, 1, "figure", quote(figure)).append(",\n");
        field(json, 1, "date", quote(when.toString())).append(",\n");
        json.append("  \"machine\": {");
        json.append("\"cpus\": ").append(Runtime.getRuntime().availableProcessors());
        json.append(", \"jvm\": ").append(quote(System.getProperty("java.vm.version")));
        json.append(", \"os\": ").append(quote(System.getProperty("os.name") + " " + System.getProperty("os.arch")));
        json.append("},\n  \"points\": [");
        for (int i = 0; i < results.size(); i++) {
            json.append(i == 0 ? "\n" : ",\n");
            point(json, results.get(i));
        }
        return json.append("\n  ]\n}\n").toString();
    }

    private static void point(StringBuilder json, PointResult r) {
        Workload w = r.workload();
        json.append("    {");
        json.append("\"series\": ").append(quote(r.series()));
        json.append(", \"mode\": ").append(quote(r.modeId()));
        json.append(", \"label\": ").append(quote(r.modeLabel()));
        json.append(", \"executionReplicas\": ").append(r.replicas());
        json.append(", \"threads\": ").append(w.threads());
        json.append(", \"workMicros\": ").append(w.workMicros());
        json.append(", \"workKind\": ").append(quote(w.workKind().name()));
        json.append(", \"objectSize\": ").append(w.objectSize());
        json.append(", \"objects\": ").append(w.objects());
        json.append(", \"conflictProbability\": ").append(number(w.conflictProbability()));
        json.append(", \"falseNegativeRate\": ").append(number(w.falseNegativeRate()));
        json.append(", \"falsePositiveRate\": ").append(number(w.falsePositiveRate()));
        json.append(", \"clients\": ").append(w.clients());
        json.append(", \"x\": ").append(number(r.x()));
        json.append(", \"seconds\": ").append(number(r.seconds()));
        json.append(", \"requests\": ").append(r.requests());
        json.append(", \"requestsPerSecond\": ").append(number(r.requestsPerSecond()));
        json.append(", \"speedup\": ").append(number(r.speedup()));
        json.append(", \"serverCpuNanos\": ").append(r.serverCpuNanos());
        json.append(", \"serverThreadCpuNanos\": ").append(r.serverThreadCpuNanos());
        json.append(", \"clientCpuNanos\": ").append(r.clientCpuNanos());
        json.append(", \"cpuMicrosPerRequest\": ").append(number(r.cpuMicrosPerRequest()));
        json.append(", \"cpuRatio\": ").append(number(r.cpuRatio()));
        json.append(", \"ok\": ").append(r.check().ok());
        json.append(", \"rootsEqual\": ").append(r.check().rootsEqual());
        json.append(", \"rollbacks\": ").append(r.check().rollbacks());
        json.append(", \"check\": ").append(quote(r.check().detail()));
        json.append('}');
    }

    private static StringBuilder field(StringBuilder json, int indent, String name, String value) {
        return json.append("  ".repeat(indent)).append(quote(name)).append(": ").append(value);
    }

    static String number(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return "null";
        }
        return String.format(Locale.ROOT, "%.6g", value)
                .replaceAll("(\\.\\d*?)0+($|e)", "$1$2")
                .replace(".e", "e")
                .replaceAll("\\.$", "");
    }

    static String quote(String text) {
        if (text == null) {
            return "null";
        }
        StringBuilder quoted = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                case '\n' -> quoted.append("\\n");
                case '\r' -> quoted.append("\\r");
                case '\t' -> quoted.append("\\t");
                default -> {
                    if (c < 0x20) {
                        quoted.append(String.format("\\u%04x", (int) c));
                    } else {
                        quoted.append(c);
                    }
                }
            }
        }
        return quoted.append('"').toString();
    }
}
