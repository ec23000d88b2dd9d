package io.eve.bench.suite;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
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

    /**
     * CPU time at one instant: the process's, each live thread's with its owner, and the JIT compilers'
     * accumulated compilation time (their threads are hidden from {@link Thread#getAllStackTraces}).
     */
    record Snapshot(long processNanos, Map<Long, Long> threadNanos, Map<Long, Owner> owners, long compilerNanos) {}

    /** CPU used between two snapshots. */
    record Usage(
            long processNanos,
            long serverThreadNanos,
            long clientNanos,
            long jvmNanos,
            long suiteNanos,
            long compilerNanos) {
        /**
         * The servers' CPU: the process's minus the clients', the JVM service threads' (compilers
         * included) and the suite's.
         */
        long serverNanos() {
            return Math.max(0, processNanos - clientNanos - jvmNanos - compilerNanos - suiteNanos);
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
        return new Snapshot(processCpuNanos(), nanos, owners, compilerNanos());
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
                byOwner[Owner.SUITE.ordinal()],
                Math.max(0, end.compilerNanos() - start.compilerNanos()));
    }

    /**
     * CPU time of the JIT compiler threads, which Java hides from {@link Thread#getAllStackTraces}: read
     * from {@code /proc/self/task/<tid>/stat} (user + system clock ticks of threads named "C1/C2
     * CompilerThread", at the usual 100 ticks a second); 0 where there is no {@code /proc}. A compiler
     * thread that ends takes its time with it, so the figure errs towards charging the servers.
     */
    static long compilerNanos() {
        Path tasks = Path.of("/proc/self/task");
        if (!Files.isDirectory(tasks)) {
            return 0;
        }
        long ticks = 0;
        try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks)) {
            for (Path task : threads) {
                ticks += compilerTicks(task);
            }
        } catch (IOException | RuntimeException unreadable) {
            return 0; // no readable /proc: charge the servers
        }
        return ticks * 10_000_000L;
    }

    /** The clock ticks of {@code task} if it is a compiler thread; 0 otherwise or if it ended meanwhile. */
    private static long compilerTicks(Path task) {
        try {
            String name = Files.readString(task.resolve("comm")).trim();
            if (!name.startsWith("C1 CompilerThre") && !name.startsWith("C2 CompilerThre")) {
                return 0;
            }
            String stat = Files.readString(task.resolve("stat"));
            // After the name in parentheses: state is field 3, utime field 14, stime field 15.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        } catch (IOException | RuntimeException ended) {
            return 0; // the thread ended while it was read: its time left with it
        }
    }

    private static long processCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : -1;
    }
}
