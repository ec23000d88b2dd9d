package io.eve.bench.session;

import io.eve.Reply;
import io.eve.client.ClientConfig;
import io.eve.client.EveClient;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.samples.kv.KeyValueStore;
import io.eve.samples.kv.KvRequest;
import io.eve.samples.kv.WorkKind;
import io.eve.transport.LocalNetwork;
import io.eve.verify.primarybackup.PrimaryBackupConfig;
import io.eve.verify.primarybackup.PrimaryBackupRoles;
import io.eve.verify.runtime.ReplicaRuntime;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Throughput of one {@link EveClient} shared by T threads against a fresh in-process primary-backup pair,
 * next to the old way, one client per thread (issue 19, docs/benchmarks.md "One client, many threads").
 * Each thread runs a closed loop of updates of random objects of the sample key-value store, each request
 * blocking for {@code workMicros} on the replicas, so the throughput depends on how many of them run at
 * once. Prints one row per thread count.
 *
 * <p>{@code java -cp tpcw-bench/target/benchmarks.jar io.eve.bench.session.SessionBenchmark [threads...]};
 * the main thread drives it, the load runs on its own threads.
 */
public final class SessionBenchmark {
    private static final int OBJECTS = 10_000;
    private static final long WORK_MICROS = 1_000;
    private static final Duration WARMUP = Duration.ofSeconds(2);
    private static final Duration MEASURED = Duration.ofSeconds(5);

    private SessionBenchmark() {}

    public static void main(String[] args) throws Exception {
        int[] threads = args.length == 0 ? new int[] {1, 4, 16, 32} : parse(args);
        PrintStream out = System.out;
        out.printf(
                "one EveClient vs one client per thread; primary-backup in process, %d executor threads, updates"
                        + " of %d objects blocking %d us each; %s warm-up, %s measured%n",
                max(threads), OBJECTS, WORK_MICROS, WARMUP, MEASURED);
        out.println("threads | one client (req/s) | client per thread (req/s) | one/per-thread | one vs 1 thread");
        double first = 0;
        for (int count : threads) {
            double shared = measure(count, max(threads), true);
            double separate = measure(count, max(threads), false);
            first = first == 0 ? shared : first;
            out.printf(
                    "%7d | %18.0f | %25.0f | %14.2f | %15.2f%n",
                    count, shared, separate, shared / separate, shared / first);
        }
    }

    private static int[] parse(String[] args) {
        int[] threads = new int[args.length];
        for (int i = 0; i < args.length; i++) {
            threads[i] = Integer.parseInt(args[i]);
            if (threads[i] < 1) {
                throw new IllegalArgumentException("thread counts must be positive, got " + args[i]);
            }
        }
        return threads;
    }

    private static int max(int[] values) {
        int max = 1;
        for (int value : values) {
            max = Math.max(max, value);
        }
        return max;
    }

    /** Requests per second that {@code threads} threads complete, sharing one client or one client each. */
    private static double measure(int threads, int executorThreads, boolean shared) throws Exception {
        try (LocalNetwork network = new LocalNetwork()) {
            List<ReplicaRuntime> replicas = new ArrayList<>();
            List<EveClient> clients = new ArrayList<>();
            try {
                for (int node = 0; node < 2; node++) {
                    ReplicaRuntime replica = ReplicaRuntime.builder()
                            .roles(PrimaryBackupRoles.of(
                                    PrimaryBackupConfig.of(0, 1, node).withBatching(4, 64, 1_000_000L)))
                            .transport(network.join(node))
                            .application(KeyValueStore.builder()
                                    .objects(OBJECTS)
                                    .objectSize(8)
                                    .workMicros(WORK_MICROS)
                                    .workKind(WorkKind.BLOCKING)
                                    .build())
                            .mixer(KeyConflictMixer.unbounded())
                            .executorThreads(executorThreads)
                            .build();
                    replica.start();
                    replicas.add(replica);
                }
                for (int c = 0; c < (shared ? 1 : threads); c++) {
                    clients.add(new EveClient(
                            network.join(1000 + c),
                            ClientConfig.of(0, 1).withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(60))));
                }
                return run(threads, clients);
            } finally {
                clients.forEach(EveClient::close);
                replicas.forEach(ReplicaRuntime::close);
            }
        }
    }

    private static double run(int threads, List<EveClient> clients) throws InterruptedException {
        AtomicBoolean counting = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong completed = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            EveClient client = clients.get(t % clients.size());
            SplittableRandom random = new SplittableRandom(t);
            Thread thread = new Thread(
                    () -> {
                        try {
                            while (!stop.get()) {
                                byte[] value = new byte[8];
                                random.nextBytes(value);
                                Reply reply = client.call(
                                        KvRequest.encode(new KvRequest.Update(random.nextInt(OBJECTS), value)));
                                if (reply.error()) {
                                    failed.incrementAndGet();
                                } else if (counting.get()) {
                                    completed.incrementAndGet();
                                }
                            }
                        } finally {
                            done.countDown();
                        }
                    },
                    "session-load-" + t);
            thread.start();
        }
        Thread.sleep(WARMUP.toMillis()); // the measured window, not synchronisation
        counting.set(true);
        long start = System.nanoTime();
        Thread.sleep(MEASURED.toMillis());
        long count = completed.get();
        double seconds = (System.nanoTime() - start) / 1e9;
        stop.set(true);
        done.await();
        if (failed.get() > 0) {
            throw new IllegalStateException(failed.get() + " requests got error replies");
        }
        return count / seconds;
    }
}
