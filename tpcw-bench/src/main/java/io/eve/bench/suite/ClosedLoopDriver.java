package io.eve.bench.suite;

import io.eve.samples.kv.KvRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Drives a running system with closed-loop clients, each with one request outstanding, updating
 * uniformly random objects ({@code SEEDED_UPDATE}, so any two requests conflict with probability
 * {@code 1 / objects}); warms up, then counts committed requests and CPU over the measured interval.
 * Runs on the suite's main thread; the clients are threads of {@link ClientSide}.
 */
final class ClosedLoopDriver {
    private final ClientSide clientSide;

    ClosedLoopDriver(ClientSide clientSide) {
        this.clientSide = clientSide;
    }

    /** What the clients achieved in the measured interval. */
    record Measurement(long requests, double seconds, CpuMeter.Usage cpu) {}

    Measurement run(Mode.Running system, Workload workload) throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong completed = new AtomicLong();
        AtomicReference<Exception> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        // Independent streams, split in client order: seeding client c with c * GAMMA (SplittableRandom's own
        // increment) made each client's stream the previous one's shifted by a draw, so clients kept choosing
        // the objects their neighbours had just updated and conflicted far more often than 1 / objects.
        SplittableRandom streams = new SplittableRandom(7);
        for (int c = 0; c < workload.clients(); c++) {
            int client = c;
            SplittableRandom random = streams.split();
            Thread thread = clientSide.newThread(
                    () -> {
                        while (running.get()) {
                            byte[] request = KvRequest.encode(
                                    new KvRequest.SeededUpdate(random.nextInt(workload.objects()), random.nextLong()));
                            try {
                                system.call(client, request);
                                completed.incrementAndGet();
                            } catch (Exception e) {
                                if (running.getAndSet(false)) {
                                    failure.set(e);
                                }
                            }
                        }
                    },
                    "kvsuite-client-" + c);
            threads.add(thread);
        }
        threads.forEach(Thread::start);
        CpuMeter meter = new CpuMeter(thread -> system.isClientThread(thread, clientSide));
        try {
            Thread.sleep(workload.warmup().toMillis());
            CpuMeter.Snapshot cpuBefore = meter.snapshot();
            long before = completed.get();
            long start = System.nanoTime();
            Thread.sleep(workload.duration().toMillis());
            long after = completed.get();
            long end = System.nanoTime();
            CpuMeter.Snapshot cpuAfter = meter.snapshot();
            if (failure.get() != null) {
                throw new IllegalStateException("a request failed", failure.get());
            }
            return new Measurement(after - before, (end - start) / 1e9, CpuMeter.between(cpuBefore, cpuAfter));
        } finally {
            running.set(false);
            for (Thread thread : threads) {
                thread.join(30_000);
            }
        }
    }
}
