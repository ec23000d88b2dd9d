package io.eve.tpcw.bench;

import io.eve.bench.harness.Progress;
import io.eve.config.ClusterConfig;
import io.eve.tpcw.TpcwSettings;
import io.eve.tpcw.driver.Mix;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;

/**
 * Drives a running TPC-W cluster of replica processes ({@code io.eve.tpcw.TpcwService}) with closed-loop
 * emulated browsers over TCP, then audits it: the execution replicas' stable roots must be equal once the
 * load has stopped. The TPC-W invariants ({@link Invariants}) need SQL on a replica's database, which lives
 * in another process, so they are not checked here (the in-JVM benchmark checks them). Called from one
 * thread.
 */
public final class ClusterLoad {
    private static final Duration AUDIT_LIMIT = Duration.ofSeconds(60);

    private ClusterLoad() {}

    /**
     * How to drive the cluster.
     *
     * @param mix browsing, shopping or ordering
     * @param browsers emulated browsers, one thread and one client each
     * @param warmupSeconds seconds of load before the measured window
     * @param seconds the measured window
     * @param thinkMillis mean think time; 0 for throughput
     * @param seed the seed of the browsers' choices
     * @param firstClient the first browser's client id; each run against the same replicas needs fresh ones
     */
    public record Settings(
            Mix mix,
            int browsers,
            double warmupSeconds,
            double seconds,
            long thinkMillis,
            long seed,
            long firstClient) {}

    /**
     * What a run measured and what the audit found.
     *
     * @param throughput interactions acknowledged per second in the window
     * @param rollbacks rollbacks over every replica during the window
     * @param view the highest view any node reports at the end (the view changes since start)
     */
    public record Result(
            double throughput,
            double p50Millis,
            double p99Millis,
            long acknowledged,
            long errors,
            long rollbacks,
            long view,
            ReplicaProbe.Audit audit) {

        /** Whether the run was clean: interactions acknowledged, no error reply, equal roots. */
        public boolean healthy() {
            return acknowledged > 0 && errors == 0 && audit.agreed();
        }

        /** The result line. */
        public String describe() {
            return String.format(
                    Locale.ROOT,
                    "%,.0f interactions/s, p50 %.2f ms, p99 %.2f ms, %d errors of %,d acknowledged,"
                            + " %d rollbacks, view %d",
                    throughput,
                    p50Millis,
                    p99Millis,
                    errors,
                    acknowledged,
                    rollbacks,
                    view);
        }
    }

    /** Runs the load against {@code cluster}, with a progress bar on {@code err}, and audits the roots. */
    public static Result run(ClusterConfig cluster, Settings settings, PrintStream err) throws Exception {
        ReplicaProbe probe = new ReplicaProbe(cluster);
        LoadDriver driver = new LoadDriver(
                TpcwSettings.from(cluster).scale(),
                settings.mix(),
                settings.browsers(),
                settings.seed(),
                settings.thinkMillis(),
                settings.firstClient());
        LoadDriver.Outcome outcome;
        try (ClusterTarget target = new ClusterTarget(cluster, probe);
                Progress progress = Progress.timed(err)) {
            String label =
                    cluster.profile().key() + ", " + settings.mix().name().toLowerCase(Locale.ROOT) + " mix";
            outcome = driver.run(target, settings.warmupSeconds(), settings.seconds(), progress, label);
        }
        ReplicaProbe.Audit audit = probe.awaitEqualRoots(AUDIT_LIMIT);
        return new Result(
                outcome.throughput(),
                outcome.p50Millis(),
                outcome.p99Millis(),
                outcome.acknowledged(),
                outcome.errors(),
                outcome.after().rollbacks() - outcome.before().rollbacks(),
                probe.totals().view(),
                audit);
    }
}
