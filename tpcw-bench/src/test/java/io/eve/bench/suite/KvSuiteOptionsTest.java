package io.eve.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.samples.kv.WorkKind;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class KvSuiteOptionsTest {
    private static final PrintStream SILENT = new PrintStream(OutputStream.nullOutputStream());

    /** Runs the command (validation fails before anything is measured); returns exit code and stderr. */
    private static String rejected(String... args) {
        StringWriter err = new StringWriter();
        CommandLine command = KvSuite.commandLine(new KvSuite(SILENT)).setErr(new PrintWriter(err));
        int code = command.execute(args);
        assertThat(code).as("exit code for %s", List.of(args)).isEqualTo(2);
        return err.toString();
    }

    @Test
    void shouldRejectZeroThreadsNamingTheOption() {
        assertThat(rejected("--threads", "4,0")).contains("--threads").contains("got 0");
    }

    @Test
    void shouldRejectNegativeWork() {
        assertThat(rejected("--work-us", "-1")).contains("--work-us").contains("got -1");
    }

    @Test
    void shouldRejectEmptyObjectsAndStores() {
        assertThat(rejected("--object-size", "0")).contains("--object-size");
        assertThat(rejected("--objects", "0")).contains("--objects");
    }

    @Test
    void shouldRejectRatesOutsideZeroToOne() {
        assertThat(rejected("--false-negative-rate", "1.5"))
                .contains("--false-negative-rate")
                .contains("[0, 1]");
        assertThat(rejected("--false-positive-rate", "-0.1")).contains("--false-positive-rate");
    }

    @Test
    void shouldRejectBadClientsAndDurations() {
        assertThat(rejected("--clients", "0")).contains("--clients");
        assertThat(rejected("--duration", "0")).contains("--duration");
        assertThat(rejected("--warmup", "-1")).contains("--warmup");
    }

    @Test
    void shouldRejectUnknownModesAndFigures() {
        assertThat(rejected("--modes", "eve-pb,paxos")).contains("--modes").contains("paxos");
        assertThat(rejected("--figure", "latency")).contains("--figure");
        assertThat(rejected("--work-kind", "GPU")).contains("--work-kind");
    }

    @Test
    void shouldMergeOverridesOntoTheFiguresDefaults() {
        KvSuite suite = new KvSuite(SILENT);
        KvSuite.commandLine(suite).parseArgs("--figure", "threads", "--threads", "1,16", "--duration", "2.5");
        Sweep sweep = suite.resolve();
        assertThat(sweep.threads()).containsExactly(1, 16);
        assertThat(sweep.workMicros()).containsExactly(100L, 1_000L, 10_000L);
        assertThat(sweep.workKind()).isEqualTo(WorkKind.BLOCKING);
        assertThat(sweep.duration()).isEqualTo(Duration.ofMillis(2500));
    }

    @Test
    void shouldPlanSequentialModesOncePerSweepValue() {
        KvSuite suite = new KvSuite(SILENT);
        KvSuite.commandLine(suite).parseArgs("--figure", "threads");
        Sweep sweep = suite.resolve();
        List<PlannedPoint> plan = Figure.THREADS.plan(sweep, Modes.all(java.nio.file.Path.of("unused")));
        // per work value: 2 sequential modes once, 2 parallel modes at 5 thread counts
        assertThat(plan).hasSize(3 * (2 + 2 * 5));
    }

    @Test
    void shouldWarmUpEachModeOnceWithItsFirstPointUntimed() {
        KvSuite suite = new KvSuite(SILENT);
        KvSuite.commandLine(suite).parseArgs("--figure", "threads", "--modes", "unreplicated,eve-pb");
        List<PlannedPoint> plan = Figure.THREADS.plan(suite.resolve(), Modes.all(java.nio.file.Path.of("unused")));

        List<PlannedPoint> warmups = SuiteRunner.firstOfEachMode(plan, Duration.ofSeconds(3));

        assertThat(warmups).extracting(p -> p.mode().id()).containsExactly("unreplicated", "eve-pb");
        for (PlannedPoint warmup : warmups) {
            PlannedPoint first = plan.stream()
                    .filter(p -> p.mode().id().equals(warmup.mode().id()))
                    .findFirst()
                    .orElseThrow();
            assertThat(warmup.workload()).isEqualTo(first.workload().timed(Duration.ZERO, Duration.ofSeconds(3)));
        }
    }

    @Test
    void shouldRejectANegativeJvmWarmup() {
        assertThat(rejected("--jvm-warmup", "-2")).contains("--jvm-warmup").contains("got -2");
    }
}
