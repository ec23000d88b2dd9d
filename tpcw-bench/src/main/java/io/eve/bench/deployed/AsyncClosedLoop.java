package io.eve.bench.deployed;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * A closed loop of {@code outstanding} requests in flight over a few connections, driven asynchronously: each
 * slot sends a {@code SEEDED_UPDATE} of a uniformly random object and, when its reply arrives, records the
 * latency and sends the next. Every connection has one driver thread; a reply's continuation runs there, so
 * the client library's I/O threads never wait on the driver. Per request the driver allocates the 17-byte
 * payload (the client keeps it until the reply) and one continuation. Latencies go into an HdrHistogram
 * {@link Recorder}, read per interval (warm-up, then the measured window). Thread-safe: {@link #start},
 * {@link #interval} and {@link #stop} from one controlling thread.
 */
final class AsyncClosedLoop {
    /** Where requests go: a system's asynchronous client, one per connection. */
    interface Target extends AutoCloseable {
        /**
         * Sends {@code payload} over connection {@code connection}; the future completes with null when the
         * request committed, or with the error the system replied.
         */
        CompletableFuture<String> send(int connection, byte[] payload);

        @Override
        void close() throws java.io.IOException;
    }

    /** One interval's latencies (nanoseconds) and the driver threads' CPU time over it. */
    record Interval(Histogram latencies, long errors, long driverCpuNanos, double seconds) {}

    private final Target target;
    private final int outstanding;
    private final int objects;
    private final List<ExecutorService> drivers = new ArrayList<>();
    private final List<Thread> driverThreads = new ArrayList<>();
    private final SplittableRandom[] randoms;
    private final Recorder recorder = new Recorder(3);
    private final AtomicLong errors = new AtomicLong();
    private final AtomicReference<String> firstError = new AtomicReference<>();
    private final CountDownLatch drained;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private volatile boolean running;
    private long intervalStart;
    private long intervalErrors;
    private long intervalCpu;

    AsyncClosedLoop(Target target, int connections, int outstanding, int objects, long seed) {
        if (connections < 1 || outstanding < connections || objects < 1) {
            throw new IllegalArgumentException("need 1 <= connections <= outstanding and objects >= 1, got "
                    + connections + " connections, " + outstanding + " outstanding, " + objects + " objects");
        }
        this.target = target;
        this.outstanding = outstanding;
        this.objects = objects;
        this.drained = new CountDownLatch(outstanding);
        this.randoms = new SplittableRandom[connections];
        SplittableRandom streams = new SplittableRandom(seed);
        for (int c = 0; c < connections; c++) {
            randoms[c] = streams.split();
            int index = c;
            drivers.add(Executors.newSingleThreadExecutor(body -> {
                Thread thread = new Thread(body, "load-driver-" + index);
                thread.setDaemon(true);
                synchronized (driverThreads) {
                    driverThreads.add(thread);
                }
                return thread;
            }));
        }
    }

    /** Puts every slot's first request in flight and starts the first interval. */
    void start() {
        running = true;
        intervalStart = System.nanoTime();
        intervalCpu = driverCpu();
        for (int slot = 0; slot < outstanding; slot++) {
            int connection = slot % drivers.size();
            drivers.get(connection).execute(() -> issue(connection));
        }
    }

    private void issue(int connection) {
        if (!running) {
            drained.countDown();
            return;
        }
        SplittableRandom random = randoms[connection];
        byte[] payload = seededUpdate(random.nextInt(objects), random.nextLong());
        long sent = System.nanoTime();
        CompletableFuture<String> reply;
        try {
            reply = target.send(connection, payload);
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        reply.whenCompleteAsync(
                (error, failure) -> {
                    if (failure == null && error == null) {
                        recorder.recordValue(System.nanoTime() - sent);
                    } else {
                        errors.incrementAndGet();
                        firstError.compareAndSet(null, failure != null ? String.valueOf(failure) : error);
                    }
                    issue(connection);
                },
                drivers.get(connection));
    }

    /** The payload of {@code KvRequest.SeededUpdate(id, seed)}, as {@code KvRequest.encode} writes it. */
    static byte[] seededUpdate(long id, long seed) {
        byte[] payload = new byte[17];
        payload[0] = 0x03;
        for (int i = 0; i < 8; i++) {
            payload[1 + i] = (byte) (id >>> (56 - 8 * i));
            payload[9 + i] = (byte) (seed >>> (56 - 8 * i));
        }
        return payload;
    }

    /** Ends the current interval, starts the next, and returns what the ended one saw. */
    Interval interval() {
        Histogram latencies = recorder.getIntervalHistogram();
        long now = System.nanoTime();
        long cpu = driverCpu();
        long errorsNow = errors.get();
        Interval interval =
                new Interval(latencies, errorsNow - intervalErrors, cpu - intervalCpu, (now - intervalStart) / 1e9);
        intervalStart = now;
        intervalCpu = cpu;
        intervalErrors = errorsNow;
        return interval;
    }

    /** The first error a request met, if any. */
    String firstError() {
        return firstError.get();
    }

    /** Stops sending, waits up to {@code seconds} for the requests in flight, and stops the drivers. */
    boolean stop(long seconds) throws InterruptedException {
        running = false;
        boolean all = drained.await(seconds, TimeUnit.SECONDS);
        drivers.forEach(ExecutorService::shutdownNow);
        return all;
    }

    private long driverCpu() {
        long total = 0;
        synchronized (driverThreads) {
            for (Thread thread : driverThreads) {
                long nanos = threads.getThreadCpuTime(thread.getId());
                total += Math.max(0, nanos);
            }
        }
        return total;
    }
}
