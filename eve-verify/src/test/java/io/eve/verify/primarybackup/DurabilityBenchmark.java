package io.eve.verify.primarybackup;

import static io.eve.verify.primarybackup.Cluster.FIRST;
import static io.eve.verify.primarybackup.Cluster.SECOND;

import io.eve.Replica;
import io.eve.client.EveClient;
import java.lang.management.ManagementFactory;
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
 * The figures of docs/benchmarks.md, "Durable replicas": not a test (no assertion on speed; the name keeps it out
 * of the Surefire and Failsafe patterns). Run it by name:
 * {@code ./mvnw -B -q -o -pl eve-storage,eve-verify -am verify -Dtest=DurabilityBenchmark
 * -Dsurefire.failIfNoSpecifiedTests=false -DskipITs}.
 */
class DurabilityBenchmark {
    private static final int CLIENTS = 64;
    private static final Duration RUN = Duration.ofSeconds(5);

    /** Closed-loop clients sending {@code payload(client, i)} until stopped; returns the requests answered. */
    private static long load(Cluster cluster, int firstClient, Duration length, boolean writes) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong answered = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            EveClient client = cluster.client(firstClient + c);
            int id = c;
            Thread thread = new Thread(() -> {
                long i = 0;
                while (!stop.get()) {
                    byte[] payload =
                            writes ? CounterApp.add((id * 7919L + i * 104_729L) % 20_000, 1) : CounterApp.get(id);
                    try {
                        client.submit(payload).get(30, TimeUnit.SECONDS);
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

    /** What one measured load gave: requests and batches answered, forces of both logs, CPU of this process. */
    private record Measured(
            double perSecond, double requestsPerBatch, double forcesPerSecond, double batchesPerForce, double cores) {
        String evidence() {
            return String.format(
                    "%.1f req/batch, %.2f cores%s",
                    requestsPerBatch,
                    cores,
                    forcesPerSecond == 0
                            ? ""
                            : String.format(
                                    ", %.0f forces/s (both logs), %.2f batches per force",
                                    forcesPerSecond, batchesPerForce));
        }
    }

    private static Measured measure(Cluster cluster) throws Exception {
        load(cluster, 100, Duration.ofSeconds(1), false);
        long batches = cluster.replicas[FIRST].metrics().batchesCommitted();
        long forces = forces(cluster);
        long cpu = processCpuNanos();
        long answered = load(cluster, 200, RUN, false);
        double seconds = RUN.toSeconds();
        batches = cluster.replicas[FIRST].metrics().batchesCommitted() - batches;
        forces = forces(cluster) - forces;
        return new Measured(
                answered / seconds,
                answered / (double) Math.max(1, batches),
                forces / seconds,
                2.0 * batches / Math.max(1, forces),
                (processCpuNanos() - cpu) / 1e9 / seconds);
    }

    private static long forces(Cluster cluster) {
        return cluster.replicas[FIRST].metrics().storageForces()
                + cluster.replicas[SECOND].metrics().storageForces();
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /**
     * In-memory against durable (sync = batch) in the same run, with the tests' batching (at most 16 requests,
     * 4 in flight, 1 ms delay, a checkpoint every 100 batches) and with the production defaults (64 requests, 4
     * in flight, 2 ms, a checkpoint every 1,000 batches).
     */
    @Test
    void durableVersusInMemoryThroughput() throws Exception {
        Path disk = Files.createDirectories(Path.of("target", "durability-benchmark"));
        for (int run = 1; run <= 3; run++) {
            for (boolean production : new boolean[] {false, true}) {
                Measured memory;
                try (Cluster cluster = production ? Cluster.production(null) : new Cluster()) {
                    memory = measure(cluster);
                }
                Measured durable;
                Path dir = Files.createTempDirectory(disk, "run");
                try (Cluster cluster = production ? Cluster.production(dir) : Cluster.durable(dir)) {
                    durable = measure(cluster);
                }
                System.out.printf(
                        "run %d, %s batching: in-memory %.0f req/s, durable (sync=batch) %.0f req/s, ratio %.2f%n"
                                + "    in-memory: %s%n    durable:   %s%n",
                        run,
                        production ? "production" : "test",
                        memory.perSecond(),
                        durable.perSecond(),
                        durable.perSecond() / memory.perSecond(),
                        memory.evidence(),
                        durable.evidence());
            }
        }
    }

    @Test
    void restartFromDiskVersusFullTransfer() throws Exception {
        Path dir = Files.createTempDirectory(
                Files.createDirectories(Path.of("target", "durability-benchmark")), "restart");
        try (Cluster cluster = Cluster.durable(dir)) {
            load(cluster, 100, Duration.ofSeconds(60), true);
            cluster.crash(SECOND);
            load(cluster, 300, Duration.ofSeconds(2), true);
            long start = System.nanoTime();
            cluster.start(SECOND, false);
            long built = System.nanoTime();
            awaitCaughtUp(cluster);
            long caughtUp = System.nanoTime();
            System.out.printf(
                    "from disk: recovered batch %d (checkpoint %d, %d replayed) in %d ms, caught up after %d ms in all,"
                            + " transfer %d bytes%n",
                    cluster.replicas[SECOND].recovered().seq(),
                    cluster.replicas[SECOND].recovered().checkpointSeq(),
                    cluster.replicas[SECOND].recovered().replayed(),
                    (built - start) / 1_000_000,
                    (caughtUp - start) / 1_000_000,
                    cluster.replicas[SECOND].metrics().transferBytes());

            cluster.crash(SECOND);
            load(cluster, 400, Duration.ofSeconds(2), true);
            Files.move(dir.resolve("node-1"), dir.resolve("node-1.moved"));
            start = System.nanoTime();
            cluster.start(SECOND, true);
            awaitCaughtUp(cluster);
            caughtUp = System.nanoTime();
            System.out.printf(
                    "full transfer: caught up after %d ms, transfer %d bytes%n",
                    (caughtUp - start) / 1_000_000,
                    cluster.replicas[SECOND].metrics().transferBytes());
        }
    }

    private static void awaitCaughtUp(Cluster cluster) {
        Cluster.await(
                "the backup serves", () -> cluster.replicas[SECOND].status().role() == Replica.Role.BACKUP);
        long seq = cluster.replicas[FIRST].committed();
        Cluster.await("the backup commits " + seq, () -> cluster.replicas[SECOND].committed() >= seq);
    }
}
