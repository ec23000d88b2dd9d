package io.eve.rdma.bench;

import io.eve.Reply;
import io.eve.client.EveClient;
import io.eve.verify.primarybackup.CounterApp;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * {@code outstanding} requests in flight over the clients: each slot adds 1 to a random counter and, when
 * the reply arrives, records the latency and sends the next (on one driver thread, never on a client's).
 */
final class ClosedLoop implements AutoCloseable {
    record Interval(Histogram latencies, long errors, double seconds) {}

    private final List<EveClient> clients;
    private final int outstanding;
    private final ExecutorService driver = Executors.newSingleThreadExecutor(body -> {
        Thread thread = new Thread(body, "load-driver");
        thread.setDaemon(true);
        return thread;
    });
    private final SplittableRandom random = new SplittableRandom(23);
    private final Recorder recorder = new Recorder(3);
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong answered = new AtomicLong();
    private volatile boolean running;
    private long intervalStart;
    private long intervalErrors;

    ClosedLoop(List<EveClient> clients, int outstanding) {
        this.clients = clients;
        this.outstanding = outstanding;
    }

    void start() {
        running = true;
        intervalStart = System.nanoTime();
        for (int slot = 0; slot < outstanding; slot++) {
            int client = slot % clients.size();
            driver.execute(() -> issue(client));
        }
    }

    private void issue(int client) {
        if (!running) {
            return;
        }
        long sent = System.nanoTime();
        CompletableFuture<Reply> reply =
                clients.get(client).submit(CounterApp.add(random.nextInt(RingClusterBenchmark.OBJECTS), 1));
        reply.whenCompleteAsync(
                (ignored, failure) -> {
                    if (failure == null) {
                        recorder.recordValue(System.nanoTime() - sent);
                        answered.incrementAndGet();
                    } else {
                        errors.incrementAndGet();
                    }
                    issue(client);
                },
                driver);
    }

    void awaitFirst(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (answered.get() == 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no request committed within " + timeout);
            }
            Thread.sleep(10);
        }
    }

    Interval interval() {
        Histogram latencies = recorder.getIntervalHistogram();
        long now = System.nanoTime();
        long errorsNow = errors.get();
        Interval interval = new Interval(latencies, errorsNow - intervalErrors, (now - intervalStart) / 1e9);
        intervalStart = now;
        intervalErrors = errorsNow;
        return interval;
    }

    void stop() {
        running = false;
    }

    @Override
    public void close() {
        running = false;
        driver.shutdownNow();
    }
}
