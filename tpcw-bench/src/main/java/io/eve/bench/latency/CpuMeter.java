package io.eve.bench.latency;

import io.eve.bench.harness.ProcessCpu;
import java.util.List;

/**
 * CPU time (user and system, all threads) of the processes taking part in a measurement, so a latency can
 * be read together with what each process spent on it. It reads what the operating system reports
 * through the harness's {@link ProcessCpu} ({@code /proc/<pid>/stat}, in clock ticks of 10 ms), so a sample is only as good as the number of requests between two of them.
 *
 * <p>Used from one thread.
 */
final class CpuMeter {
    private final List<ProcessHandle> processes;

    CpuMeter(ProcessHandle... processes) {
        this.processes = List.of(processes);
    }

    int processes() {
        return processes.size();
    }

    /** Each process's CPU time so far, in nanoseconds. */
    long[] sample() {
        long[] nanos = new long[processes.size()];
        for (int i = 0; i < nanos.length; i++) {
            ProcessHandle process = processes.get(i);
            nanos[i] = ProcessCpu.nanos(process);
            if (nanos[i] < 0) {
                throw new IllegalStateException("process " + process.pid() + " exited during the measurement");
            }
        }
        return nanos;
    }

    /**
     * Each process's JIT compiler threads' CPU time so far, in nanoseconds ({@link ProcessCpu#compilerNanos}; -1
     * for a process whose threads the system does not show).
     */
    long[] compilerSample() {
        long[] nanos = new long[processes.size()];
        for (int i = 0; i < nanos.length; i++) {
            nanos[i] = ProcessCpu.compilerNanos(processes.get(i));
        }
        return nanos;
    }

    /**
     * Adds to {@code totals} what each process spent since {@code mark} (a {@link #sample()}); returns the
     * new sample, the mark of what follows.
     */
    long[] addSince(long[] mark, long[] totals) {
        long[] now = sample();
        for (int i = 0; i < now.length; i++) {
            totals[i] += now[i] - mark[i];
        }
        return now;
    }
}
