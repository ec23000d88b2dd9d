package io.eve.bench.suite;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Where the CPU time of this JVM went during a measurement, by whose threads: the servers', the
 * clients', the JVM's own (compiler, reference handling: the {@code system} thread group) and the
 * suite's (its main and progress threads). Everything runs in one process, so the server figure is the
 * process's CPU time minus what the other threads used: it includes garbage collection, whose threads
 * are not Java threads. The sum over the server threads alone is kept beside it.
 *
 * <p>Per-thread CPU comes from {@link ThreadMXBean#getThreadCpuTime}; a thread that ends during the
 * measurement loses its time from the thread sums but not from the process time. Used by one thread.
 */
final class CpuMeter {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** Whose a thread is. */
    enum Owner {
        SERVER,
        CLIENT,
        JVM,
        SUITE
    }

    /** CPU time at one instant: the process's, and each live thread's with its owner. */
    record Snapshot(long processNanos, Map<Long, Long> threadNanos, Map<Long, Owner> owners) {}

    /** CPU used between two snapshots. */
    record Usage(long processNanos, long serverThreadNanos, long clientNanos, long jvmNanos, long suiteNanos) {
        /** The servers' CPU: the process's minus the clients', the JVM service threads' and the suite's. */
        long serverNanos() {
            return Math.max(0, processNanos - clientNanos - jvmNanos - suiteNanos);
        }
    }

    private final Predicate<Thread> isClient;

    CpuMeter(Predicate<Thread> isClient) {
        this.isClient = isClient;
    }

    static boolean supported() {
        return THREADS.isThreadCpuTimeSupported() && processCpuNanos() >= 0;
    }

    Snapshot snapshot() {
        Map<Long, Long> nanos = new HashMap<>();
        Map<Long, Owner> owners = new HashMap<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            long cpu = THREADS.getThreadCpuTime(thread.getId());
            if (cpu >= 0) {
                nanos.put(thread.getId(), cpu);
                owners.put(thread.getId(), ownerOf(thread));
            }
        }
        return new Snapshot(processCpuNanos(), nanos, owners);
    }

    private Owner ownerOf(Thread thread) {
        ThreadGroup group = thread.getThreadGroup();
        if (group == null || "system".equals(group.getName()) || "InnocuousThreadGroup".equals(group.getName())) {
            return Owner.JVM;
        }
        if (thread.getName().startsWith("kvsuite-") && !thread.getName().startsWith("kvsuite-client")) {
            return Owner.SUITE;
        }
        if (isClient.test(thread)) {
            return Owner.CLIENT;
        }
        return thread.getName().equals("main") ? Owner.SUITE : Owner.SERVER;
    }

    static Usage between(Snapshot start, Snapshot end) {
        long[] byOwner = new long[Owner.values().length];
        for (Map.Entry<Long, Long> entry : end.threadNanos().entrySet()) {
            long before = start.threadNanos().getOrDefault(entry.getKey(), 0L);
            byOwner[end.owners().get(entry.getKey()).ordinal()] += Math.max(0, entry.getValue() - before);
        }
        return new Usage(
                end.processNanos() - start.processNanos(),
                byOwner[Owner.SERVER.ordinal()],
                byOwner[Owner.CLIENT.ordinal()],
                byOwner[Owner.JVM.ordinal()],
                byOwner[Owner.SUITE.ordinal()]);
    }

    private static long processCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : -1;
    }
}
