package io.eve.bench.storage;

import com.sun.management.OperatingSystemMXBean;
import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * What one durable write costs on this machine's disk, the way the storage writes (docs/benchmarks.md, "Where
 * the crash profile's durable time goes"): records appended into a file written ahead with zeros (so the
 * file's size never changes), each made durable before the next, in three ways: {@code write} then {@code
 * fdatasync} (what {@code BatchLog} and {@code StateFile} do), a file opened with {@code O_DSYNC}, and {@code
 * O_DIRECT} with {@code O_DSYNC} (block-aligned writes that bypass the page cache). For each it prints the wall
 * time per record, this process's CPU per record and the whole machine's busy CPU per record (from {@code
 * /proc/stat}: the kernel's work for the disk done outside the process too).
 *
 * <pre>
 * java -cp tpcw-bench/target/benchmarks.jar io.eve.bench.storage.ForceCost [records] [dir] [sizes...]
 * </pre>
 *
 * Defaults: 4,000 records per size, the current folder, 4 KiB and 64 KiB.
 */
public final class ForceCost {
    private static final int BLOCK = 4096;
    private static final long NANOS_PER_JIFFY = 10_000_000L;

    private ForceCost() {}

    /** The ways of making a record durable that the benchmark compares. */
    enum Method {
        FDATASYNC(false, false),
        DSYNC(true, false),
        DIRECT_DSYNC(true, true);

        final boolean dsync;
        final boolean direct;

        Method(boolean dsync, boolean direct) {
            this.dsync = dsync;
            this.direct = direct;
        }

        OpenOption[] options() {
            List<OpenOption> options = new ArrayList<>(List.of(StandardOpenOption.WRITE));
            if (dsync) {
                options.add(StandardOpenOption.DSYNC);
            }
            if (direct) {
                options.add(ExtendedOpenOption.DIRECT);
            }
            return options.toArray(OpenOption[]::new);
        }
    }

    public static void main(String[] args) throws IOException {
        int records = args.length > 0 ? Integer.parseInt(args[0]) : 4000;
        Path dir = Path.of(args.length > 1 ? args[1] : ".");
        int[] sizes = args.length > 2
                ? java.util.Arrays.stream(args, 2, args.length)
                        .mapToInt(Integer::parseInt)
                        .toArray()
                : new int[] {4096, 65536};
        if (records < 1) {
            throw new IllegalArgumentException("records must be at least 1, got " + records);
        }
        System.out.printf(
                "%-13s %8s %14s %18s %18s%n",
                "method", "bytes", "wall us/rec", "process CPU us/rec", "machine CPU us/rec");
        for (int size : sizes) {
            if (size < 1) {
                throw new IllegalArgumentException("a record size is at least 1 byte, got " + size);
            }
            for (Method method : Method.values()) {
                run(method, size, records, dir);
            }
        }
    }

    private static void run(Method method, int size, int records, Path dir) throws IOException {
        Path file = Files.createTempFile(dir, "force-cost-", ".dat");
        try {
            int stride = method.direct ? roundUp(size) : size;
            long length = (long) stride * records * 2 + BLOCK;
            writeZeros(file, length);
            ByteBuffer record = ByteBuffer.allocateDirect(roundUp(size) + BLOCK).alignedSlice(BLOCK);
            OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            try (FileChannel channel = FileChannel.open(file, method.options())) {
                long at = 0;
                for (int round = 0; round < 2; round++) { // the first warms up
                    long busy = machineBusyJiffies();
                    long cpu = os.getProcessCpuTime();
                    long start = System.nanoTime();
                    for (int i = 0; i < records; i++) {
                        record.clear().limit(stride);
                        record.put(0, (byte) i);
                        while (record.hasRemaining()) {
                            at += channel.write(record, at);
                        }
                        if (!method.dsync) {
                            channel.force(false);
                        }
                    }
                    long wall = System.nanoTime() - start;
                    long processCpu = os.getProcessCpuTime() - cpu;
                    long machineCpu = (machineBusyJiffies() - busy) * NANOS_PER_JIFFY;
                    if (round == 1) {
                        System.out.printf(
                                "%-13s %8d %14.1f %18.1f %18.1f%n",
                                method,
                                size,
                                wall / 1e3 / records,
                                processCpu / 1e3 / records,
                                machineCpu / 1e3 / records);
                    }
                }
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static int roundUp(int size) {
        return (size + BLOCK - 1) / BLOCK * BLOCK;
    }

    private static void writeZeros(Path file, long length) throws IOException {
        ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            for (long at = 0; at < length; ) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), length - at));
                at += channel.write(zeros, at);
            }
            channel.force(true);
        }
    }

    /**
     * Jiffies the machine's CPUs spent busy since boot: user, nice, system, irq and softirq (not idle, iowait or
     * steal; guest time is already inside user).
     */
    private static long machineBusyJiffies() throws IOException {
        String[] fields = Files.readAllLines(Path.of("/proc/stat"), StandardCharsets.US_ASCII)
                .get(0)
                .trim()
                .split("\\s+");
        long busy = 0;
        for (int i : new int[] {1, 2, 3, 6, 7}) {
            busy += Long.parseLong(fields[i]);
        }
        return busy;
    }
}
