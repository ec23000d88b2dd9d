package io.eve.bench.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

/**
 * CPU time (user and system, all threads) of a process, read from {@code /proc/<pid>/stat} where there is
 * one (in clock ticks: 10 ms on Linux, so a figure is as good as the number of requests over which it is
 * spread), else from {@link ProcessHandle.Info#totalCpuDuration()}. Stateless.
 */
public final class ProcessCpu {
    /** Clock ticks per second of {@code /proc/<pid>/stat} ({@code getconf CLK_TCK}; 100 on Linux). */
    static final long TICKS_PER_SECOND = 100;

    private ProcessCpu() {}

    /**
     * The process's CPU time so far in nanoseconds, or -1 once it has exited.
     *
     * @throws IllegalStateException if the system reports no CPU time for a live process
     */
    public static long nanos(ProcessHandle process) {
        Path stat = Path.of("/proc", Long.toString(process.pid()), "stat");
        if (Files.isDirectory(Path.of("/proc", "self"))) {
            try {
                return fromStat(Files.readString(stat, StandardCharsets.US_ASCII));
            } catch (NoSuchFileException gone) {
                return -1;
            } catch (IOException e) {
                throw new IllegalStateException("could not read " + stat + ": " + e.getMessage(), e);
            }
        }
        if (!process.isAlive()) {
            return -1;
        }
        return process.info()
                .totalCpuDuration()
                .map(Duration::toNanos)
                .orElseThrow(() -> new IllegalStateException(
                        "the operating system does not report the CPU time of process " + process.pid()));
    }

    /**
     * CPU time so far of the process's JIT compiler threads (HotSpot's {@code C1 CompilerThread<n>} and {@code
     * C2 CompilerThread<n>}, summed over {@code /proc/<pid>/task/<tid>/stat}), in nanoseconds: what tells a
     * measurement taken on compiled code from one taken while the JVM still compiles. -1 where there is no
     * {@code /proc} or once the process has exited. A compiler thread that exits between two samples (HotSpot
     * adds and removes them with the load) takes its time with it, so a difference can read low, never high.
     */
    public static long compilerNanos(ProcessHandle process) {
        Path tasks = Path.of("/proc", Long.toString(process.pid()), "task");
        if (!Files.isDirectory(tasks)) {
            return -1;
        }
        long total = 0;
        try (Stream<Path> threads = Files.list(tasks)) {
            for (Path thread : (Iterable<Path>) threads::iterator) {
                String line;
                try {
                    line = Files.readString(thread.resolve("stat"), StandardCharsets.US_ASCII);
                } catch (NoSuchFileException gone) {
                    continue; // the thread ended after the listing
                }
                if (isCompilerThread(line)) {
                    total += fromStat(line);
                }
            }
        } catch (NoSuchFileException | UncheckedIOException gone) {
            return process.isAlive() ? 0 : -1;
        } catch (IOException e) {
            throw new IllegalStateException("could not read " + tasks + ": " + e.getMessage(), e);
        }
        return total;
    }

    /**
     * Whether a {@code /proc/<pid>/task/<tid>/stat} line is a JIT compiler thread's: its command (field 2, in
     * parentheses, at most 15 characters) starts with {@code C1 CompilerThre} or {@code C2 CompilerThre}.
     */
    static boolean isCompilerThread(String line) {
        int open = line.indexOf('(');
        int close = line.lastIndexOf(')');
        if (open < 0 || close < open) {
            throw new IllegalArgumentException("not a /proc stat line (no command in parentheses): " + line);
        }
        String command = line.substring(open + 1, close);
        return command.startsWith("C1 CompilerThre") || command.startsWith("C2 CompilerThre");
    }

    /**
     * utime + stime of a {@code /proc/<pid>/stat} line, in nanoseconds. The command name (field 2) is in
     * parentheses and may itself hold spaces and parentheses, so the fields are counted after its last
     * closing parenthesis: utime and stime are fields 14 and 15 of the line.
     *
     * @throws IllegalArgumentException if the line does not have that shape
     */
    static long fromStat(String line) {
        int close = line.lastIndexOf(')');
        if (close < 0) {
            throw new IllegalArgumentException("not a /proc/<pid>/stat line (no ')' after the command): " + line);
        }
        String[] fields = line.substring(close + 1).trim().split("\\s+");
        // fields[0] is field 3 (state), so field n is fields[n - 3].
        if (fields.length < 13) {
            throw new IllegalArgumentException(
                    "a /proc/<pid>/stat line has at least 15 fields, got " + (fields.length + 2) + ": " + line);
        }
        try {
            long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
            return ticks * (1_000_000_000L / TICKS_PER_SECOND);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("utime/stime of a /proc/<pid>/stat line are not numbers: " + line, e);
        }
    }
}
