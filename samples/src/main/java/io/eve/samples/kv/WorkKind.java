package io.eve.samples.kv;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.locks.LockSupport;

/**
 * What a request does with its execution time before it touches the state (Eve §7.2: "1 ms of execution
 * time per request"). The time decides only how long a request takes, never what it writes or answers,
 * so it cannot make replicas diverge.
 */
public enum WorkKind {
    /**
     * Computes for {@code micros} of this thread's CPU time (not wall time: on a machine with more busy
     * threads than cores a request still does the same amount of work, it only takes longer), with
     * arithmetic whose result is published, so the JIT cannot drop the loop. Falls back to wall time where
     * the JVM does not measure thread CPU time.
     */
    CPU {
        @Override
        public long perform(long micros, long salt) {
            boolean cpuClock = THREADS.isCurrentThreadCpuTimeSupported();
            long start = cpuClock ? THREADS.getCurrentThreadCpuTime() : System.nanoTime();
            long budget = micros * 1_000L;
            long x = salt;
            do {
                for (int i = 0; i < 1_024; i++) {
                    x = x * 0x5851F42D4C957F2DL + 0x14057B7EF767814FL;
                    x ^= x >>> 29;
                }
            } while ((cpuClock ? THREADS.getCurrentThreadCpuTime() : System.nanoTime()) - start < budget);
            return x;
        }
    },

    /** Parks the thread, like a request waiting for a disk or a remote call; leaves the core free. */
    BLOCKING {
        @Override
        public long perform(long micros, long salt) {
            long deadline = System.nanoTime() + micros * 1_000L;
            boolean interrupted = false;
            // An interrupt must not cut the wait short in a way that shows in the reply; keep waiting and
            // restore the flag for whoever owns the thread.
            for (long left = micros * 1_000L; left > 0; left = deadline - System.nanoTime()) {
                LockSupport.parkNanos(left);
                interrupted |= Thread.interrupted();
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            return salt;
        }
    };

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /**
     * Spends about {@code micros} microseconds; returns a value the caller must publish somewhere. Public for
     * servers of the same store outside Eve (the deployed benchmark's unreplicated baseline).
     */
    public abstract long perform(long micros, long salt);
}
