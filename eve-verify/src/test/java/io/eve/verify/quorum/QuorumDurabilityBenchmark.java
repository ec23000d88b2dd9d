package io.eve.verify.quorum;

import io.eve.client.EveClient;
import io.eve.verify.primarybackup.CounterApp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The figures of docs/benchmarks.md, "Durable quorum replicas": not a test (no assertion on speed; the name
 * keeps it out of the Surefire and Failsafe patterns). One JVM, the crash profile over the in-process network,
 * in memory against {@code storage.dir} with {@code sync = batch} (log, executed tail and verifier memory),
 * alternating, in the same run. Run it by name:
 * {@code ./mvnw -B -q -o -pl eve-storage,eve-verify -am verify -Dtest=QuorumDurabilityBenchmark
 * -Dsurefire.failIfNoSpecifiedTests=false -DskipITs}.
 */
class QuorumDurabilityBenchmark {
    private static final int CLIENTS = 64;
    /** {@code -Dbench.warmup=S}, {@code -Dbench.seconds=S}, {@code -Dbench.runs=N}: defaults 1 s, 5 s and 3. */
    private static final Duration WARM_UP = Duration.ofSeconds(Long.getLong("bench.warmup", 1));

    private static final Duration RUN = Duration.ofSeconds(Long.getLong("bench.seconds", 5));
    private static final int RUNS = Integer.getInteger("bench.runs", 3);

    /** Closed-loop clients adding to spread counters until stopped; returns the requests answered. */
    private static long load(QuorumCluster cluster, int firstClient, Duration length) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong answered = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            EveClient client = cluster.client(firstClient + c);
            int id = c;
            Thread thread = new Thread(() -> {
                long i = 0;
                while (!stop.get()) {
                    try {
                        client.submit(CounterApp.add((id * 7919L + i * 104_729L) % 20_000, 1))
                                .get(30, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    answered.incrementAndGet();
                    i++;
                }
            });
            thread.start();
            threads.add(thread);
        }
        Thread.sleep(length.toMillis());
        stop.set(true);
        for (Thread thread : threads) {
            thread.join();
        }
        return answered.get();
    }

    private static double throughput(QuorumCluster cluster) throws Exception {
        load(cluster, 1000, WARM_UP);
        return load(cluster, 2000, RUN) / (RUN.toMillis() / 1000.0);
    }

    @Test
    void durableVersusInMemoryThroughput() throws Exception {
        // -Dbench.pipelined=true: both clusters with agreement.pipelined on (docs/quorum.md, "Pipelined agreement").
        QuorumConfig crash = QuorumConfig.crash(new int[] {0, 1, 2}, 0)
                .withPipelinedAgreement(Boolean.getBoolean("bench.pipelined"));
        for (int run = 1; run <= RUNS; run++) {
            double memory;
            try (QuorumCluster cluster = QuorumCluster.inMemory(crash)) {
                memory = throughput(cluster);
            }
            Path dir = Files.createTempDirectory("eve-quorum-bench");
            double durable;
            try (QuorumCluster cluster = QuorumCluster.durable(crash, dir)) {
                durable = throughput(cluster);
            }
            System.out.printf(
                    "run %d (agreement pipelined %s): in-memory %.0f req/s, durable (sync=batch) %.0f req/s, ratio"
                            + " %.2f%n",
                    run, crash.pipelinedAgreement() ? "on" : "off", memory, durable, durable / memory);
        }
    }
}
