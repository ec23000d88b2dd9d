package io.eve.bench.suite;

import io.eve.samples.kv.WorkKind;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The key-value performance suite (Eve §7.2): runs the sample key-value store in several modes in one
 * JVM and one run, prints a table, and writes {@code kvsuite-<figure>.json} and PNG plots into the
 * output directory. Exit code 0 when every point committed requests and passed its check, 1 otherwise,
 * 2 for a usage error.
 *
 * <p>{@code java -cp tpcw-bench/target/benchmarks.jar io.eve.bench.suite.KvSuite --figure threads}; see
 * {@code --help} and docs/benchmarks.md.
 */
@Command(
        name = "kvsuite",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = "Key-value throughput and CPU per request in several replication modes (Eve §7.2).")
public final class KvSuite implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--figure", description = "Preset sweep: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    private Figure figure = Figure.CUSTOM;

    @Option(
            names = "--modes",
            split = ",",
            description = "Modes to run, of: unreplicated-seq, unreplicated,"
                    + " sequential-replication, eve-pb, eve-pb-netty, ratis.")
    private List<String> modes;

    @Option(names = "--threads", split = ",", description = "Execution threads, e.g. 1,2,4,8,16.")
    private List<Integer> threads;

    @Option(names = "--work-us", split = ",", description = "Work per request in microseconds, e.g. 100,1000.")
    private List<Long> workMicros;

    @Option(names = "--work-kind", description = "CPU (spin) or BLOCKING (wait).")
    private WorkKind workKind;

    @Option(names = "--object-size", split = ",", description = "Bytes per object, e.g. 10,1024,10240.")
    private List<Integer> objectSizes;

    @Option(names = "--objects", split = ",", description = "Numbers of objects (conflict probability 1/objects).")
    private List<Integer> objects;

    @Option(names = "--false-negative-rate", split = ",", description = "Mixer false-negative rates in [0, 1].")
    private List<Double> falseNegativeRates;

    @Option(names = "--false-positive-rate", split = ",", description = "Mixer false-positive rates in [0, 1].")
    private List<Double> falsePositiveRates;

    @Option(names = "--clients", description = "Closed-loop clients, one request outstanding each.")
    private Integer clients;

    @Option(names = "--max-batch", description = "Requests per Eve batch at most (default 64).")
    private Integer maxBatchSize;

    @Option(names = "--duration", description = "Measured seconds per point.")
    private Double durationSeconds;

    @Option(names = "--warmup", description = "Warm-up seconds per point.")
    private Double warmupSeconds;

    @Option(
            names = "--jvm-warmup",
            description = "Unmeasured seconds each mode runs once before the first measured point, so that"
                    + " mode order does not bias the comparison (default 4; 0 with --smoke).")
    private Double jvmWarmupSeconds;

    @Option(names = "--output", description = "Output directory (default: ${DEFAULT-VALUE}).")
    private Path output = Path.of("tpcw-bench", "target", "kvsuite");

    @Option(names = "--smoke", description = "A tiny run of every mode, about 1 s per point (for CI).")
    private boolean smoke;

    private static final Duration DEFAULT_JVM_WARMUP = Duration.ofSeconds(4);

    private final PrintStream out;
    private List<PointResult> results = List.of();

    public KvSuite() {
        this(System.out);
    }

    KvSuite(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        // Replica and Ratis lifecycle logs would bury the table: warnings only, on stderr, unless asked.
        setIfAbsent("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        setIfAbsent("org.slf4j.simpleLogger.logFile", "System.err");
        System.exit(commandLine(new KvSuite()).execute(args));
    }

    /** The command line around a suite: enum values ({@code --figure threads}) in any case. */
    static CommandLine commandLine(KvSuite suite) {
        return new CommandLine(suite).setCaseInsensitiveEnumValuesAllowed(true);
    }

    private static void setIfAbsent(String property, String value) {
        if (System.getProperty(property) == null) {
            System.setProperty(property, value);
        }
    }

    /** The results of the last {@link #call}. */
    List<PointResult> results() {
        return results;
    }

    @Override
    public Integer call() throws Exception {
        Sweep sweep = resolve();
        Map<String, Mode> known = Modes.all(output.resolve("ratis"));
        List<PlannedPoint> plan = figure.plan(sweep, known);
        String name = "kvsuite-" + figure.name().toLowerCase(java.util.Locale.ROOT);
        out.printf(
                "%s: %d points, %d clients, %.1f s + %.1f s warm-up each, %s work, output %s%n",
                name,
                plan.size(),
                sweep.clients(),
                sweep.duration().toMillis() / 1e3,
                sweep.warmup().toMillis() / 1e3,
                sweep.workKind(),
                output);
        Duration jvmWarmup = jvmWarmupSeconds != null
                ? seconds("--jvm-warmup", jvmWarmupSeconds, 0)
                : smoke ? Duration.ZERO : DEFAULT_JVM_WARMUP;
        results = new SuiteRunner(out).run(plan, jvmWarmup);
        Files.createDirectories(output);
        Path json = output.resolve(name + ".json");
        Files.writeString(json, JsonReport.render(name, Instant.now(), results), StandardCharsets.UTF_8);
        out.println("wrote " + json);
        for (Path png : Plots.write(figure, results, output, name)) {
            out.println("wrote " + png);
        }
        boolean allOk = results.stream().allMatch(r -> r.check().ok() && r.requests() > 0);
        return allOk ? 0 : 1;
    }

    /** The figure's defaults with the command line's values over them, validated. */
    Sweep resolve() {
        Sweep d = smoke ? smokeDefaults() : figure.defaults();
        Sweep sweep = new Sweep(
                or(modes, d.modes()),
                or(threads, d.threads()),
                or(workMicros, d.workMicros()),
                workKind == null ? d.workKind() : workKind,
                or(objectSizes, d.objectSizes()),
                or(objects, d.objects()),
                or(falseNegativeRates, d.falseNegativeRates()),
                or(falsePositiveRates, d.falsePositiveRates()),
                clients == null ? d.clients() : clients,
                maxBatchSize == null ? d.maxBatchSize() : maxBatchSize,
                warmupSeconds == null ? d.warmup() : seconds("--warmup", warmupSeconds, 0),
                durationSeconds == null ? d.duration() : seconds("--duration", durationSeconds, 0.1));
        validate(sweep);
        return sweep;
    }

    private Sweep smokeDefaults() {
        Sweep d = figure.defaults();
        List<String> smokeModes = figure == Figure.CUSTOM ? Modes.ids() : d.modes();
        return new Sweep(
                smokeModes,
                List.of(2),
                List.of(figure == Figure.PEER ? 0L : 100L),
                WorkKind.BLOCKING,
                List.of(64),
                figure == Figure.CONFLICT ? List.of(1_000, 10) : List.of(1_000),
                figure == Figure.CONFLICT ? List.of(0.0, 0.1) : List.of(0.0),
                figure == Figure.CONFLICT ? List.of(0.0, 0.1) : List.of(0.0),
                8,
                64,
                Duration.ofMillis(300),
                Duration.ofMillis(700));
    }

    private void validate(Sweep sweep) {
        List<String> knownModes = Modes.ids();
        for (String mode : sweep.modes()) {
            require(knownModes.contains(mode), "--modes", "unknown mode '" + mode + "'; expected one of " + knownModes);
        }
        require(!sweep.modes().isEmpty(), "--modes", "at least one mode is needed");
        for (int t : sweep.threads()) {
            require(t >= 1 && t <= 1024, "--threads", "every value must be in [1, 1024], got " + t);
        }
        for (long w : sweep.workMicros()) {
            require(w >= 0 && w <= 10_000_000, "--work-us", "every value must be in [0, 10000000], got " + w);
        }
        for (int s : sweep.objectSizes()) {
            require(s >= 1 && s <= 1 << 20, "--object-size", "every value must be in [1, 1048576] bytes, got " + s);
        }
        for (int n : sweep.objects()) {
            require(n >= 1 && n <= 10_000_000, "--objects", "every value must be in [1, 10000000], got " + n);
        }
        for (double r : sweep.falseNegativeRates()) {
            require(r >= 0 && r <= 1, "--false-negative-rate", "every value is a probability in [0, 1], got " + r);
        }
        for (double r : sweep.falsePositiveRates()) {
            require(r >= 0 && r <= 1, "--false-positive-rate", "every value is a probability in [0, 1], got " + r);
        }
        require(
                sweep.maxBatchSize() >= 1 && sweep.maxBatchSize() <= 65_536,
                "--max-batch",
                "must be in [1, 65536], got " + sweep.maxBatchSize());
        require(
                sweep.clients() >= 1 && sweep.clients() <= 4096,
                "--clients",
                "must be in [1, 4096], got " + sweep.clients());
    }

    private Duration seconds(String option, double value, double min) {
        require(value >= min && value <= 3600, option, "must be in [" + min + ", 3600] seconds, got " + value);
        return Duration.ofMillis(Math.round(value * 1000));
    }

    private void require(boolean condition, String option, String message) {
        if (!condition) {
            throw new ParameterException(spec.commandLine(), option + ": " + message);
        }
    }

    private static <T> List<T> or(List<T> given, List<T> fallback) {
        return given == null || given.isEmpty() ? fallback : List.copyOf(new ArrayList<>(given));
    }
}
