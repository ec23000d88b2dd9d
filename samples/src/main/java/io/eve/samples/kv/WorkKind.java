package io.eve.samples.kv;

import java.util.concurrent.locks.LockSupport;

/**
 * What a request does with its execution time before it touches the state (Eve §7.2: "1 ms of execution
 * time per request"). The time is measured with the monotonic clock; it decides only how long a request
 * takes, never what it writes or answers, so it cannot make replicas diverge.
 */
public enum WorkKind {
    /** Keeps a core busy with arithmetic whose result is published, so the JIT cannot drop the loop. */
    CPU {
        @Override
        long perform(long micros, long salt) {
            long deadline = System.nanoTime() + micros * 1_000L;
            long x = salt;
            do {
                for (int i = 0; i < 256; i++) {
                    x = x * 0x5851F42D4C957F2DL + 0x14057B7EF767814FL;
                    x ^= x >>> 29;
                }
            } while (System.nanoTime() - deadline < 0);
            return x;
        }
    },

    /** Parks the thread, like a request waiting for a disk or a remote call; leaves the core free. */
    BLOCKING {
        @Override
        long perform(long micros, long salt) {
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

    /** Spends about {@code micros} microseconds; returns a value the caller must publish somewhere. */
    abstract long perform(long micros, long salt);
}
