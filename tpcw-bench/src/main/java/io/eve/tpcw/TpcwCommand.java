package io.eve.tpcw;

import io.eve.Replica;
import io.eve.config.ClusterConfig;
import io.eve.server.EveReplica;
import io.eve.server.launch.Launcher;
import io.eve.tpcw.bench.ClusterLoad;
import io.eve.tpcw.bench.ProcessBenchmark;
import io.eve.tpcw.bench.ProcessCluster;
import io.eve.tpcw.driver.Mix;
import io.eve.tpcw.schema.Scale;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./eve tpcw replica|load|demo|bench}: TPC-W on H2 as separate JVMs in any profile (docs/tpcw.md, "As
 * processes"). Each subcommand runs on the main thread.
 */
@Command(
        name = "eve tpcw",
        mixinStandardHelpOptions = true,
        description = "TPC-W on H2 as replica processes: run a replica, drive a cluster, a demo, the benchmark.",
        subcommands = {
            TpcwCommand.ReplicaCommand.class,
            TpcwCommand.LoadCommand.class,
            TpcwCommand.DemoCommand.class,
            TpcwCommand.BenchCommand.class
        })
public final class TpcwCommand {

    public static void main(String[] args) {
        System.exit(new CommandLine(new TpcwCommand()).execute(args));
    }

    /** Reads {@code browsing}, {@code shopping} or {@code ordering} in any case. */
    static final class MixConverter implements ITypeConverter<Mix> {
        @Override
        public Mix convert(String value) {
            try {
                return Mix.valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(
                        "the mix must be browsing, shopping or ordering, got '" + value + "'");
            }
        }
    }

    /** The load's options, shared by {@code load}, {@code demo} and {@code bench}. */
    static final class LoadOptions {
        @Option(
                names = "--mix",
                converter = MixConverter.class,
                description = "browsing, shopping or ordering (default: ${DEFAULT-VALUE})")
        Mix mix = Mix.SHOPPING;

        @Option(names = "--browsers", description = "emulated browsers, one client each (default: ${DEFAULT-VALUE})")
        int browsers = 8;

        @Option(names = "--seconds", description = "measured seconds (default: ${DEFAULT-VALUE})")
        double seconds = 10;

        @Option(names = "--warmup", description = "warm-up seconds before them (default: ${DEFAULT-VALUE})")
        double warmup = 2;
    }

    /** The database's scale, written into the {@code app.} settings by {@code demo} and {@code bench}. */
    static final class ScaleOptions {
        @Option(names = "--items", description = "items in the database (default: ${DEFAULT-VALUE})")
        int items = 1000;

        @Option(names = "--ebs", description = "browsers the customers are populated for (default: ${DEFAULT-VALUE})")
        int ebs = 8;

        @Option(
                names = "--customer-scale",
                description = "fraction of the spec's 2880 customers per browser (default: ${DEFAULT-VALUE})")
        double customerScale = 0.1;

        @Option(names = "--threads", description = "executor threads per replica (default: ${DEFAULT-VALUE})")
        int threads = 2;

        TpcwSettings tpcw() {
            return new TpcwSettings(
                    new Scale(items, ebs, customerScale),
                    TpcwSettings.DEFAULT.cartPartitions(),
                    TpcwSettings.DEFAULT.seed());
        }
    }

    @Command(
            name = "replica",
            mixinStandardHelpOptions = true,
            description = "Run one TPC-W replica of the cluster in --config until stopped; the database's scale"
                    + " comes from its app. settings.")
    static final class ReplicaCommand implements Callable<Integer> {
        @Option(names = "--config", required = true, description = "The cluster configuration file.")
        Path config;

        @Option(names = "--node", required = true, description = "This replica's node id.")
        int node;

        @Option(names = "--join", description = "Restarting: catch up from the other replicas before serving.")
        boolean join;

        @Override
        public Integer call() throws Exception {
            Replica replica = EveReplica.builder()
                    .config(config)
                    .node(node)
                    .application(cluster -> newService(cluster))
                    .join(join)
                    .start();
            return Launcher.runUntilStopped(replica, 5000, System.out);
        }

        private static TpcwService newService(ClusterConfig cluster) {
            try {
                return new TpcwService(cluster);
            } catch (Exception e) {
                throw new IllegalStateException("cannot build the TPC-W database", e);
            }
        }
    }

    @Command(
            name = "load",
            mixinStandardHelpOptions = true,
            description = "Drive a running TPC-W cluster with emulated browsers, then compare the replicas' roots."
                    + " Exit 0 if no error reply and the roots are equal.")
    static final class LoadCommand implements Callable<Integer> {
        @Option(names = "--config", required = true, description = "The cluster configuration file.")
        Path config;

        @Mixin
        LoadOptions load = new LoadOptions();

        @Option(names = "--think-ms", description = "mean think time, 0 for throughput (default: ${DEFAULT-VALUE})")
        long thinkMillis;

        @Option(names = "--seed", description = "seed of the browsers' choices (default: ${DEFAULT-VALUE})")
        long seed = 42;

        @Override
        public Integer call() throws Exception {
            ClusterConfig cluster = ClusterConfig.load(config);
            // Fresh client ids: a browser reusing an earlier run's id would be answered from its replies.
            long firstClient = ThreadLocalRandom.current().nextInt(1_000_000, Integer.MAX_VALUE - 100_000);
            return report(ClusterLoad.run(cluster, settings(load, thinkMillis, seed, firstClient), System.err));
        }
    }

    @Command(
            name = "demo",
            mixinStandardHelpOptions = true,
            description = "Start a TPC-W cluster of the chosen profile as child JVMs on free ports (files in"
                    + " target/tpcw-demo/PROFILE), drive it, print the result and the replicas' roots, stop it.")
    static final class DemoCommand implements Callable<Integer> {
        @Option(names = "--profile", description = "primary-backup, crash or bft (default: ${DEFAULT-VALUE})")
        String profile = "primary-backup";

        @Mixin
        LoadOptions load = new LoadOptions();

        @Mixin
        ScaleOptions scale = new ScaleOptions();

        @Override
        public Integer call() throws Exception {
            Path dir = Path.of("target", "tpcw-demo", profile);
            Path config = ProcessCluster.writeConfig(dir, profile, scale.threads, scale.tpcw());
            System.out.printf("starting %s replicas (configuration and logs in %s) ...%n", profile, dir);
            try (ProcessCluster cluster = ProcessCluster.start(config, List.of("-Xmx512m"))) {
                return report(ClusterLoad.run(
                        cluster.cluster(),
                        settings(load, 0, 42, ThreadLocalRandom.current().nextInt(1000, 1_000_000)),
                        System.err));
            }
        }
    }

    @Command(
            name = "bench",
            mixinStandardHelpOptions = true,
            description = "The multi-process benchmark: per run, sequential unreplicated H2 in this JVM, then each"
                    + " profile as replica JVMs driven from this JVM; ratio per replica core = Eve / (sequential x"
                    + " executor threads). Exit 0 if every Eve point had no error reply and equal roots.")
    static final class BenchCommand implements Callable<Integer> {
        @Mixin
        LoadOptions load = new LoadOptions();

        @Mixin
        ScaleOptions scale = new ScaleOptions();

        @Option(names = "--profiles", split = ",", description = "profiles to run (default: ${DEFAULT-VALUE})")
        List<String> profiles = List.of("primary-backup", "crash", "bft");

        @Option(names = "--runs", description = "repetitions of the whole sequence (default: ${DEFAULT-VALUE})")
        int runs = 3;

        @Option(names = "--out", description = "folder for configurations and logs (default: ${DEFAULT-VALUE})")
        Path out = Path.of("target", "tpcw-processes");

        @Override
        public Integer call() throws Exception {
            ProcessBenchmark.Settings settings = new ProcessBenchmark.Settings(
                    scale.tpcw(),
                    load.mix,
                    load.browsers,
                    load.warmup,
                    load.seconds,
                    profiles,
                    scale.threads,
                    runs,
                    List.of("-Xmx512m"),
                    out);
            return new ProcessBenchmark(settings, System.out, System.err).run() ? 0 : 1;
        }
    }

    private static ClusterLoad.Settings settings(LoadOptions load, long thinkMillis, long seed, long firstClient) {
        return new ClusterLoad.Settings(
                load.mix, load.browsers, load.warmup, load.seconds, thinkMillis, seed, firstClient);
    }

    private static int report(ClusterLoad.Result result) {
        System.out.println("result: " + result.describe());
        System.out.println("audit: " + result.audit().describe());
        System.out.println("invariants: not checked here (they need SQL on a replica's database, which lives in"
                + " the replica process; the in-JVM benchmark TpcwBenchmark checks them)");
        return result.healthy() ? 0 : 1;
    }
}
