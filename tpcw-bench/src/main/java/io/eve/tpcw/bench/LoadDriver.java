package io.eve.tpcw.bench;

import io.eve.bench.harness.Progress;
import io.eve.tpcw.driver.EmulatedBrowser;
import io.eve.tpcw.driver.Mix;
import io.eve.tpcw.interaction.Interaction;
import io.eve.tpcw.interaction.RequestCodec;
import io.eve.tpcw.interaction.TpcwRequest;
import io.eve.tpcw.schema.Scale;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Drives a {@link LoadTarget} with closed-loop emulated browsers (one thread each) for a warm-up and a
 * measured window, then stops them and waits for every outstanding interaction to finish, so the number
 * acknowledged is final. Latencies and throughput count only the window; counts of sent interactions and
 * successful Buy Confirms cover the whole run (the invariant checks need them).
 */
final class LoadDriver {
    /** Client ids of the in-JVM targets' browsers start here (they double as node ids on the local network). */
    static final int FIRST_CLIENT = 1000;
    /** How long the browsers get to finish their last interaction once the window has closed. */
    private static final long STOP_TIMEOUT_NANOS = 60_000_000_000L;

    private final Scale scale;
    private final Mix mix;
    private final int browsers;
    private final long seed;
    private final long thinkMillis;
    private final long firstClient;

    /** What one run produced. */
    record Outcome(
            double throughput,
            double p50Millis,
            double p99Millis,
            long windowCompleted,
            long windowCpuNanos,
            Target.PipelineCounters before,
            Target.PipelineCounters after,
            long acknowledged,
            long errors,
            long buyConfirmsCommitted,
            long[] sent) {}

    LoadDriver(Scale scale, Mix mix, int browsers, long seed, long thinkMillis) {
        this(scale, mix, browsers, seed, thinkMillis, FIRST_CLIENT);
    }

    /**
     * @param firstClient the client id of the first browser; the others follow it. Browsers that reuse the
     *     ids of an earlier run against the same replicas would be answered from its replies, so a run against
     *     a long-lived cluster takes fresh ones.
     */
    LoadDriver(Scale scale, Mix mix, int browsers, long seed, long thinkMillis, long firstClient) {
        this.scale = scale;
        this.mix = mix;
        this.browsers = browsers;
        this.seed = seed;
        this.thinkMillis = thinkMillis;
        this.firstClient = firstClient;
    }

    Outcome run(LoadTarget target, double warmupSeconds, double seconds, Progress progress, String label)
            throws InterruptedException {
        AtomicLong acknowledged = new AtomicLong();
        LongAdder errors = new LongAdder();
        LongAdder buyConfirms = new LongAdder();
        LongAdder windowCompleted = new LongAdder();
        AtomicLong[] sent = new AtomicLong[Interaction.values().length];
        Arrays.setAll(sent, i -> new AtomicLong());
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Recorder latencies = new Recorder(3);
        Flags flags = new Flags();
        List<Thread> threads = new ArrayList<>();
        for (int b = 0; b < browsers; b++) {
            EmulatedBrowser browser = new EmulatedBrowser(firstClient + b, scale, mix, seed);
            Thread thread = new Thread(
                    () -> {
                        while (!flags.stop && failure.get() == null) {
                            TpcwRequest request = browser.next();
                            sent[request.interaction().ordinal()].incrementAndGet();
                            long start = System.nanoTime();
                            boolean ok;
                            try {
                                ok = target.call(browser.clientId(), RequestCodec.encode(request));
                            } catch (Exception e) {
                                failure.compareAndSet(null, e);
                                return;
                            }
                            long nanos = System.nanoTime() - start;
                            acknowledged.incrementAndGet();
                            if (!ok) {
                                errors.increment();
                            } else if (request.interaction() == Interaction.BUY_CONFIRM) {
                                buyConfirms.increment();
                            }
                            if (flags.measuring) {
                                windowCompleted.increment();
                                latencies.recordValue(nanos);
                            }
                            pause(browser.thinkMillis(thinkMillis));
                        }
                    },
                    "tpcw-eb-" + b);
            thread.setDaemon(true);
            threads.add(thread);
        }
        progress.begin(
                label, java.time.Duration.ofMillis(Math.round((warmupSeconds + seconds) * 1000)), acknowledged::get);
        threads.forEach(Thread::start);
        Thread.sleep((long) (warmupSeconds * 1000));
        Target.PipelineCounters before = target.counters();
        long cpuBefore = processCpuNanos();
        long startNanos = System.nanoTime();
        flags.measuring = true;
        Thread.sleep((long) (seconds * 1000));
        flags.measuring = false;
        long elapsed = System.nanoTime() - startNanos;
        long cpu = processCpuNanos() - cpuBefore;
        Target.PipelineCounters after = target.counters();
        flags.stop = true;
        long joinDeadline = System.nanoTime() + STOP_TIMEOUT_NANOS;
        for (Thread thread : threads) {
            thread.join(Math.max(1, (joinDeadline - System.nanoTime()) / 1_000_000));
            if (thread.isAlive()) {
                throw new IllegalStateException(
                        label + ": " + thread.getName() + " is still waiting for an interaction "
                                + STOP_TIMEOUT_NANOS / 1_000_000_000 + " s after the window closed");
            }
        }
        if (failure.get() != null) {
            throw new IllegalStateException(label + ": an interaction failed", failure.get());
        }
        Histogram all = latencies.getIntervalHistogram();
        long[] sentCounts = Arrays.stream(sent).mapToLong(AtomicLong::get).toArray();
        return new Outcome(
                windowCompleted.sum() / (elapsed / 1e9),
                all.getTotalCount() == 0 ? 0 : all.getValueAtPercentile(50) / 1e6,
                all.getTotalCount() == 0 ? 0 : all.getValueAtPercentile(99) / 1e6,
                windowCompleted.sum(),
                cpu,
                before,
                after,
                acknowledged.get(),
                errors.sum(),
                buyConfirms.sum(),
                sentCounts);
    }

    /** Flags the browser threads read. */
    private static final class Flags {
        volatile boolean measuring;
        volatile boolean stop;
    }

    private static void pause(long millis) {
        if (millis <= 0) {
            return;
        }
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** CPU time of the whole process: every replica, the driver and the JIT/GC threads, all in this JVM. */
    static long processCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
            return sun.getProcessCpuTime();
        }
        return 0;
    }
}
