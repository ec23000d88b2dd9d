package io.eve.bench.suite;

import io.eve.bench.harness.Json;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON of one run: the figure, the machine, and one object per measured point with its settings,
 * throughput, CPU accounting and check; written by the harness's Jackson mapper ({@link Json}), NaN as
 * {@code null}. Stateless.
 */
final class JsonReport {
    private JsonReport() {}

    static String render(String figure, Instant when, List<PointResult> results) {
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("figure", figure);
        report.put("date", when.toString());
        Map<String, Object> machine = new LinkedHashMap<>();
        machine.put("cpus", Runtime.getRuntime().availableProcessors());
        machine.put("jvm", System.getProperty("java.vm.version"));
        machine.put("os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        report.put("machine", machine);
        report.put("points", results.stream().map(JsonReport::point).toList());
        return Json.render(report);
    }

    private static Map<String, Object> point(PointResult r) {
        Workload w = r.workload();
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("series", r.series());
        p.put("mode", r.modeId());
        p.put("label", r.modeLabel());
        p.put("executionReplicas", r.replicas());
        p.put("threads", w.threads());
        p.put("workMicros", w.workMicros());
        p.put("workKind", w.workKind().name());
        p.put("objectSize", w.objectSize());
        p.put("objects", w.objects());
        p.put("conflictProbability", w.conflictProbability());
        p.put("falseNegativeRate", w.falseNegativeRate());
        p.put("falsePositiveRate", w.falsePositiveRate());
        p.put("clients", w.clients());
        p.put("x", r.x());
        p.put("seconds", r.seconds());
        p.put("requests", r.requests());
        p.put("requestsPerSecond", r.requestsPerSecond());
        p.put("speedup", r.speedup());
        p.put("serverCpuNanos", r.serverCpuNanos());
        p.put("serverThreadCpuNanos", r.serverThreadCpuNanos());
        p.put("clientCpuNanos", r.clientCpuNanos());
        p.put("cpuMicrosPerRequest", r.cpuMicrosPerRequest());
        p.put("cpuRatio", r.cpuRatio());
        p.put("ok", r.check().ok());
        p.put("rootsEqual", r.check().rootsEqual());
        p.put("rollbacks", r.check().rollbacks());
        p.put("check", r.check().detail());
        return p;
    }
}
