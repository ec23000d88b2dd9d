package io.eve.samples.cli;

import io.eve.Reply;
import io.eve.client.EveClient;
import io.eve.samples.kv.KeyValueStore;
import io.eve.samples.kv.KvRequest;
import io.eve.transport.netty.ConnectionLossLog;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * Closed-loop load: each client updates random objects of its own share of the store and checks that each
 * object's version grows by exactly one per acknowledged update (a lost or repeated write shows as a
 * wrong reply). Prints a progress bar and a summary with throughput and latency percentiles.
 */
@Command(name = "load", mixinStandardHelpOptions = true, description = "Drive a closed-loop update workload.")
final class LoadCommand implements Callable<Integer> {
    @ParentCommand
    ClientCommand parent;

    @Option(names = "--clients", defaultValue = "16", description = "Concurrent clients (default ${DEFAULT-VALUE}).")
    int clients;

    @Option(names = "--seconds", defaultValue = "10", description = "How long to run (default ${DEFAULT-VALUE}).")
    int seconds;

    @Option(
            names = "--objects",
            defaultValue = "10000",
            description = "Objects in the store (default ${DEFAULT-VALUE}).")
    int objects;

    @Override
    public Integer call() throws Exception {
        Result result = run(parent.config, parent.clientId(), clients, objects, seconds, System.out, null);
        return result.wrong() == 0 && result.failed() == 0 ? 0 : 1;
    }

    /** What a load run saw. */
    record Result(long acknowledged, long wrong, long failed, double perSecond, double p50Millis, double p99Millis) {}

    /** Runs the load; {@code onSecond}, if given, is called after each second with the elapsed seconds. */
    static Result run(
            Path config,
            int firstId,
            int clients,
            int objects,
            int seconds,
            PrintStream out,
            java.util.function.IntConsumer onSecond)
            throws InterruptedException {
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong acknowledged = new AtomicLong();
        AtomicLong wrong = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        List<long[]> latencies = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        int owned = objects / clients;
        // A replica's crash resets every client's connection to it: the load reports it once, not per client.
        ConnectionLossLog losses = new ConnectionLossLog();
        for (int c = 0; c < clients; c++) {
            int share = c;
            long[] samples = new long[seconds * 20_000 + 1];
            latencies.add(samples);
            Thread thread = new Thread(
                    () -> {
                        SplittableRandom random = new SplittableRandom(firstId + share);
                        long[] versions = new long[owned];
                        boolean[] uncertain = new boolean[owned];
                        int count = 0;
                        try (EveClient client = ClientCommand.connect(config, firstId + share, losses)) {
                            while (running.get()) {
                                int slot = random.nextInt(owned);
                                long object = (long) slot * clients + share;
                                long start = System.nanoTime();
                                Reply reply;
                                try {
                                    reply = client.call(
                                            KvRequest.encode(new KvRequest.SeededUpdate(object, random.nextLong())));
                                } catch (RuntimeException e) {
                                    // It may or may not have been applied: the next version may skip one.
                                    failed.incrementAndGet();
                                    uncertain[slot] = true;
                                    continue;
                                }
                                if (count < samples.length - 1) {
                                    samples[++count] = System.nanoTime() - start;
                                    samples[0] = count;
                                }
                                long version = reply.error() ? -1 : KeyValueStore.versionOf(reply.payload());
                                boolean expected =
                                        uncertain[slot] ? version > versions[slot] : version == versions[slot] + 1;
                                if (!expected) {
                                    wrong.incrementAndGet();
                                } else {
                                    versions[slot] = version;
                                    uncertain[slot] = false;
                                }
                                acknowledged.incrementAndGet();
                            }
                        }
                    },
                    "load-" + c);
            thread.setDaemon(true);
            threads.add(thread);
        }
        long started = System.nanoTime();
        threads.forEach(Thread::start);
        long last = 0;
        for (int second = 1; second <= seconds; second++) {
            Thread.sleep(1000);
            long now = acknowledged.get();
            out.printf(
                    "  [%-30s] %3d s %,9d committed %,7d/s%s%n",
                    "#".repeat(30 * second / seconds),
                    second,
                    now,
                    now - last,
                    wrong.get() + failed.get() > 0 ? "  wrong " + wrong.get() + " failed " + failed.get() : "");
            last = now;
            if (onSecond != null) {
                onSecond.accept(second);
            }
        }
        running.set(false);
        for (Thread thread : threads) {
            thread.join(65_000);
        }
        double elapsed = (System.nanoTime() - started) / 1e9;
        long[] all = merge(latencies);
        Result result = new Result(
                acknowledged.get(),
                wrong.get(),
                failed.get(),
                acknowledged.get() / elapsed,
                percentile(all, 0.50),
                percentile(all, 0.99));
        out.printf(
                "load: %,d requests acknowledged in %.1f s (%,.0f/s), latency p50 %.2f ms, p99 %.2f ms,"
                        + " %d wrong replies, %d failed requests%n",
                result.acknowledged(),
                elapsed,
                result.perSecond(),
                result.p50Millis(),
                result.p99Millis(),
                result.wrong(),
                result.failed());
        return result;
    }

    private static long[] merge(List<long[]> perClient) {
        int total = 0;
        for (long[] samples : perClient) {
            total += (int) samples[0];
        }
        long[] all = new long[total];
        int at = 0;
        for (long[] samples : perClient) {
            int count = (int) samples[0];
            System.arraycopy(samples, 1, all, at, count);
            at += count;
        }
        Arrays.sort(all);
        return all;
    }

    private static double percentile(long[] sorted, double quantile) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Math.min(sorted.length - 1, (int) (quantile * sorted.length))] / 1e6;
    }
}
