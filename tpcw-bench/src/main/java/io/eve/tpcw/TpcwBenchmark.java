package io.eve.tpcw;

import io.eve.tpcw.bench.BenchmarkRunner;
import io.eve.tpcw.bench.BenchmarkSettings;
import io.eve.tpcw.bench.ModeResult;
import io.eve.tpcw.bench.Report;
import io.eve.tpcw.bench.ThroughputChart;
import io.eve.tpcw.driver.Mix;
import io.eve.tpcw.schema.Scale;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * TPC-W on H2 in one run (Eve §7.1, Fig. 3): one mix measured unreplicated and sequential, unreplicated
 * with T threads, and as Eve's primary-backup pair with T execution threads per replica, for each T;
 * writes JSON and a PNG of throughput against threads. Exit code 0 if every point passed its checks
 * (replica roots equal, invariants, acknowledged = committed, no error replies), 1 otherwise.
 *
 * <p>{@code java -cp tpcw-bench/target/benchmarks.jar io.eve.tpcw.TpcwBenchmark --help}
 */
@Command(
        name = "tpcw-benchmark",
        mixinStandardHelpOptions = true,
        description =
                "TPC-W on H2: unreplicated sequential, unreplicated parallel, Eve primary-backup and the Eve crash profile.")
public final class TpcwBenchmark implements Callable<Integer> {
    @Option(names = "--mix", description = "browsing, shopping or ordering (default: ${DEFAULT-VALUE})")
    private String mix = "shopping";

    @Option(names = "--items", description = "items in the database (default: ${DEFAULT-VALUE})")
    private int items = 1000;

    @Option(
            names = "--browsers",
            description =
                    "emulated browsers; the database holds 2880 customers per browser (default: ${DEFAULT-VALUE})")
    private int browsers = 20;

    @Option(
            names = "--customer-scale",
            description = "fraction of the spec's customers to create (default: ${DEFAULT-VALUE})")
    private double customerScale = 0.1;

    @Option(names = "--threads", split = ",", description = "execution thread counts (default: ${DEFAULT-VALUE})")
    private List<Integer> threads = List.of(1, 2, 4, 8);

    @Option(names = "--seconds", description = "measured seconds per point (default: ${DEFAULT-VALUE})")
    private double seconds = 10;

    @Option(names = "--warmup", description = "warm-up seconds per point (default: ${DEFAULT-VALUE})")
    private double warmup = 3;

    @Option(names = "--think-ms", description = "mean think time, 0 for throughput (default: ${DEFAULT-VALUE})")
    private long thinkMillis;

    @Option(names = "--seed", description = "seed of data and browsers (default: ${DEFAULT-VALUE})")
    private long seed = 42;

    @Option(names = "--cart-partitions", description = "mixer's cart partitions (default: ${DEFAULT-VALUE})")
    private int cartPartitions = 10;

    @Option(names = "--max-batch", description = "most requests per Eve batch (default: ${DEFAULT-VALUE})")
    private int maxBatch = 64;

    @Option(names = "--out", description = "directory for the JSON and PNG (default: ${DEFAULT-VALUE})")
    private Path out = Path.of("tpcw-bench/target/tpcw");

    @Option(names = "--date", description = "date recorded in the JSON (default: today)")
    private String date = LocalDate.now().toString();

    @Option(
            names = "--smoke",
            description = "tiny scale, about 2 s per point, threads 1,2 (overrides the size options)")
    private boolean smoke;

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        System.exit(new CommandLine(new TpcwBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        BenchmarkSettings settings = settings();
        List<ModeResult> results = new BenchmarkRunner(settings, System.out, System.err).run();
        String name = "tpcw-" + settings.mix().name().toLowerCase(Locale.ROOT);
        Files.createDirectories(out);
        Path json = out.resolve(name + ".json");
        Files.writeString(json, Report.toJson(settings, results, date), StandardCharsets.UTF_8);
        Path png = out.resolve(name + ".png");
        ThroughputChart.write(
                results,
                "TPC-W " + settings.mix().name().toLowerCase(Locale.ROOT) + " mix on H2, "
                        + settings.scale().items() + " items",
                png);
        System.out.println("results written to " + json + " and " + png);
        return results.stream().allMatch(ModeResult::healthy) ? 0 : 1;
    }

    BenchmarkSettings settings() {
        Mix chosen;
        try {
            chosen = Mix.valueOf(mix.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this), "--mix must be browsing, shopping or ordering, got " + mix);
        }
        if (smoke) {
            return new BenchmarkSettings(
                    chosen, new Scale(200, 4, 0.01), 4, List.of(1, 2), 0.5, 1.5, 0, seed, cartPartitions, maxBatch);
        }
        return new BenchmarkSettings(
                chosen,
                new Scale(items, browsers, customerScale),
                browsers,
                threads,
                warmup,
                seconds,
                thinkMillis,
                seed,
                cartPartitions,
                maxBatch);
    }
}
