package io.eve.bench.cluster;

import io.eve.ExecutionContext;
import io.eve.client.ClientConfig;
import io.eve.client.EveClient;
import io.eve.mixer.Mixer;
import io.eve.mixer.SequentialMixer;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.samples.kv.KeyValueStore;
import io.eve.samples.kv.KvRequest;
import io.eve.samples.kv.WorkKind;
import io.eve.transport.LocalNetwork;
import io.eve.verify.primarybackup.PrimaryBackupConfig;
import io.eve.verify.primarybackup.PrimaryBackupReplica;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Throughput of the key-value store of Eve §7.2 in several modes, in one run (Eve Fig. 4's question: does
 * replication keep the cores?): the unreplicated server executing sequentially and with T threads, a
 * primary-backup pair executing one request at a time (agree-then-execute replication, the baseline Eve
 * improves on), and Eve's primary-backup pair executing parallel batches with T threads. Closed-loop
 * clients update random objects; each request does W microseconds of blocking work (like I/O), which
 * shows how well each mode overlaps requests whatever the number of cores.
 *
 * <p>Usage: {@code java -cp tpcw-bench/target/benchmarks.jar io.eve.bench.cluster.ThroughputBenchmark
 * [threads] [workMicros] [clients] [seconds] [json-out]}.
 */
public final class ThroughputBenchmark {
    private final int threads;
    private final long workMicros;
    private final int clients;
    private final Duration duration;
    private final PrintStream out;

    ThroughputBenchmark(int threads, long workMicros, int clients, Duration duration, PrintStream out) {
        this.threads = threads;
        this.workMicros = workMicros;
        this.clients = clients;
        this.duration = duration;
        this.out = out;
    }

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        long work = args.length > 1 ? Long.parseLong(args[1]) : 1000;
        int clients = args.length > 2 ? Integer.parseInt(args[2]) : 32;
        Duration duration = Duration.ofSeconds(args.length > 3 ? Long.parseLong(args[3]) : 5);
        Path json = Path.of(args.length > 4 ? args[4] : "tpcw-bench/target/throughput.json");
        Map<String, Double> results = new ThroughputBenchmark(threads, work, clients, duration, System.out).runAll();
        Files.createDirectories(json.toAbsolutePath().getParent());
        Files.writeString(json, toJson(threads, work, clients, duration, results), StandardCharsets.UTF_8);
        System.out.println("results written to " + json);
    }

    Map<String, Double> runAll() throws Exception {
        out.printf(
                "KV store, 10,000 objects of 1 KB, %d us blocking work per request, %d closed-loop clients,"
                        + " %d s per mode%n",
                workMicros, clients, duration.toSeconds());
        Map<String, Double> results = new LinkedHashMap<>();
        results.put("unreplicated, 1 thread", measure("unreplicated, 1 thread", unreplicated(1)));
        results.put(
                "unreplicated, " + threads + " threads",
                measure("unreplicated, " + threads + " threads", unreplicated(threads)));
        results.put(
                "replicated, sequential execution",
                measure("replicated, sequential execution", replicated(new SequentialMixer(), 1)));
        results.put(
                "Eve primary-backup, " + threads + " threads",
                measure(
                        "Eve primary-backup, " + threads + " threads",
                        replicated(KeyConflictMixer.unbounded(), threads)));
        double base = results.get("unreplicated, 1 thread");
        out.println();
        out.printf("%-40s %12s %10s%n", "mode", "requests/s", "vs 1 thread");
        results.forEach((mode, rate) -> out.printf("%-40s %,12.0f %9.2fx%n", mode, rate, rate / base));
        return results;
    }

    /** A system under test: started, driven by one call per request, stopped. */
    private interface Target extends AutoCloseable {
        void call(int client, byte[] request) throws Exception;

        @Override
        void close();
    }

    private KeyValueStore store() {
        return KeyValueStore.builder()
                .objects(10_000)
                .objectSize(1024)
                .workMicros(workMicros)
                .workKind(WorkKind.BLOCKING)
                .build();
    }

    /** The store executed directly on a pool, each object under its own lock (what a plain server does). */
    private Target unreplicated(int poolThreads) {
        KeyValueStore store = store();
        ExecutorService pool = Executors.newFixedThreadPool(poolThreads);
        Object[] locks = new Object[1024];
        for (int i = 0; i < locks.length; i++) {
            locks[i] = new Object();
        }
        AtomicLong seq = new AtomicLong();
        return new Target() {
            @Override
            public void call(int client, byte[] request) throws Exception {
                long id = ((KvRequest.SeededUpdate) KvRequest.decode(request)).id();
                Future<byte[]> done = pool.submit(() -> {
                    synchronized (locks[(int) (id % locks.length)]) {
                        long n = seq.incrementAndGet();
                        return store.execute(request, new ExecutionContext(n, 0, 0, n, client, n));
                    }
                });
                done.get();
            }

            @Override
            public void close() {
                pool.shutdownNow();
            }
        };
    }

    /** A primary-backup pair in this JVM with the given mixer and executor threads. */
    private Target replicated(Mixer mixer, int executorThreads) {
        LocalNetwork network = new LocalNetwork();
        List<PrimaryBackupReplica> replicas = new ArrayList<>();
        for (int node = 0; node < 2; node++) {
            PrimaryBackupReplica replica = PrimaryBackupReplica.builder()
                    .config(PrimaryBackupConfig.of(0, 1, node).withBatching(4, 64, 1_000_000L))
                    .transport(network.join(node))
                    .application(store())
                    .mixer(mixer)
                    .executorThreads(executorThreads)
                    .build();
            replica.start();
            replicas.add(replica);
        }
        EveClient[] eveClients = new EveClient[clients];
        for (int c = 0; c < clients; c++) {
            eveClients[c] = new EveClient(
                    network.join(1000 + c),
                    ClientConfig.of(0, 1).withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(60)));
        }
        return new Target() {
            @Override
            public void call(int client, byte[] request) {
                eveClients[client].call(request);
            }

            @Override
            public void close() {
                for (EveClient client : eveClients) {
                    client.close();
                }
                replicas.forEach(PrimaryBackupReplica::close);
                network.close();
            }
        };
    }

    /** Runs closed-loop clients for a warm-up second and then the measured duration; returns requests/s. */
    private double measure(String mode, Target system) throws Exception {
        try (system) {
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicLong completed = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int client = c;
                Thread thread = new Thread(() -> {
                    SplittableRandom random = new SplittableRandom(client);
                    while (running.get()) {
                        byte[] request =
                                KvRequest.encode(new KvRequest.SeededUpdate(random.nextInt(10_000), random.nextLong()));
                        try {
                            system.call(client, request);
                            completed.incrementAndGet();
                        } catch (Exception e) {
                            if (running.get()) {
                                throw new IllegalStateException(mode + ": a request failed", e);
                            }
                        }
                    }
                });
                thread.setDaemon(true);
                thread.start();
                threads.add(thread);
            }
            Thread.sleep(1000);
            long before = completed.get();
            long start = System.nanoTime();
            Thread.sleep(duration.toMillis());
            double rate = (completed.get() - before) / ((System.nanoTime() - start) / 1e9);
            running.set(false);
            for (Thread thread : threads) {
                thread.join(10_000);
            }
            out.printf("  %-40s %,10.0f requests/s%n", mode, rate);
            return rate;
        }
    }

    private static String toJson(int threads, long work, int clients, Duration duration, Map<String, Double> results) {
        StringBuilder json = new StringBuilder("{\n");
        json.append("  \"threads\": ").append(threads).append(",\n");
        json.append("  \"workMicros\": ").append(work).append(",\n");
        json.append("  \"clients\": ").append(clients).append(",\n");
        json.append("  \"seconds\": ").append(duration.toSeconds()).append(",\n");
        json.append("  \"requestsPerSecond\": {\n");
        int i = 0;
        for (Map.Entry<String, Double> entry : results.entrySet()) {
            json.append("    \"").append(entry.getKey()).append("\": ").append(String.format("%.1f", entry.getValue()));
            json.append(++i < results.size() ? ",\n" : "\n");
        }
        return json.append("  }\n}\n").toString();
    }
}
