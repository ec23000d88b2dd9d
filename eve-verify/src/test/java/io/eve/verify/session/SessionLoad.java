package io.eve.verify.session;

import io.eve.Reply;
import io.eve.client.EveClient;
import io.eve.verify.primarybackup.CounterApp;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One {@link EveClient} driven by many threads at once, each adding 1 to {@link CounterApp} counters and
 * collecting the values the acknowledged adds returned, so a test can check exactly-once: per counter, the
 * acknowledged adds returned 1, 2, ..., n each once, and the counter ends at n. Used from the test thread;
 * the load runs on its own threads.
 */
public final class SessionLoad {
    private final EveClient client;
    private final int threads;
    private final int keys;
    private final Map<Long, Set<Long>> returned = new ConcurrentHashMap<>();
    private final List<String> problems = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final AtomicInteger acknowledged = new AtomicInteger();

    public SessionLoad(EveClient client, int threads, int keys) {
        this.client = client;
        this.threads = threads;
        this.keys = keys;
    }

    /**
     * Runs {@code perThread} adds on each thread; after {@code faultAfter} acknowledged adds in all, runs
     * {@code fault} on the test thread while the load goes on. Returns when every thread is done.
     */
    public void run(int perThread, int faultAfter, Runnable fault, Duration deadline) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch faultDue = new CountDownLatch(faultAfter);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long key = t % keys;
                running.add(pool.submit(() -> addRepeatedly(key, perThread, faultDue)));
            }
            if (!faultDue.await(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("only " + acknowledged.get() + " adds acknowledged before the fault");
            }
            fault.run();
            long end = System.nanoTime() + deadline.toNanos();
            for (Future<?> thread : running) {
                thread.get(Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private void addRepeatedly(long key, int count, CountDownLatch faultDue) {
        for (int i = 0; i < count; i++) {
            Reply reply;
            try {
                reply = client.call(CounterApp.add(key, 1));
            } catch (RuntimeException e) {
                problems.add("add to " + key + " failed: " + e);
                continue;
            }
            if (reply.error()) {
                problems.add("add to " + key + " refused: " + reply.errorText());
                continue;
            }
            long value = Long.parseLong(new String(reply.payload(), StandardCharsets.UTF_8));
            if (!returned.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet())
                    .add(value)) {
                problems.add("two acknowledged adds to " + key + " both returned " + value);
            }
            acknowledged.incrementAndGet();
            faultDue.countDown();
        }
    }

    /** Requests that failed, were refused, or returned a value twice; empty when all went well. */
    public List<String> problems() {
        return problems;
    }

    public int acknowledged() {
        return acknowledged.get();
    }

    /** Per counter, the values its acknowledged adds returned, sorted. */
    public Map<Long, Set<Long>> returned() {
        Map<Long, Set<Long>> sorted = new TreeMap<>();
        returned.forEach((key, values) -> sorted.put(key, new TreeSet<>(values)));
        return sorted;
    }

    /** What {@link #returned()} must be when every acknowledged add was applied exactly once. */
    public Map<Long, Set<Long>> exactlyOnce() {
        Map<Long, Set<Long>> expected = new TreeMap<>();
        returned.forEach((key, values) -> {
            Set<Long> run = new TreeSet<>();
            for (long v = 1; v <= values.size(); v++) {
                run.add(v);
            }
            expected.put(key, run);
        });
        return expected;
    }
}
