package io.eve.rdma;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Finds out whether DiSNI can work here without touching DiSNI's native static initializer (which, once
 * failed, poisons its class for the JVM's lifetime): the DiSNI class is on the class path (looked up without
 * initialising it), {@code sun.nio.ch} is exported to unnamed modules, {@code libdisni.so} lies on {@code
 * java.library.path}, RDMA devices exist, and the locked-memory limit allows the rings. Only when all of
 * those pass does it ask the environment for the deep check (opening an RDMA event channel).
 *
 * <p>Immutable; the {@link Environment} is the test hook.
 */
public final class RdmaProbe {
    public static final String DISNI_CLASS = "com.ibm.disni.RdmaEndpointGroup";

    private final Environment environment;
    private final long requiredLockedBytes;

    /** What the probe reads of the machine. */
    public interface Environment {
        boolean classPresent(String name);

        boolean sunNioChExported();

        /** The directories of {@code java.library.path}, in order. */
        List<Path> libraryPath();

        /** Directories searched to give a better hint when libdisni is installed but not on the path. */
        List<Path> otherLibraryDirs();

        /** {@code /sys/class/infiniband}. */
        Path deviceDir();

        /** The soft locked-memory limit in bytes, {@code Long.MAX_VALUE} when unlimited, empty if unreadable. */
        OptionalLong lockedMemoryLimit();

        /**
         * Whether this process holds {@code CAP_IPC_LOCK} in its effective set (root usually does), which
         * lets it lock memory beyond {@code RLIMIT_MEMLOCK}.
         */
        default boolean canLockBeyondLimit() {
            return false;
        }

        /** Opens and closes an RDMA event channel; {@code null} on success, else why it failed. */
        String deepCheck();
    }

    /** {@code CAP_IPC_LOCK}'s bit in the capability sets of {@code /proc/self/status}. */
    static final int CAP_IPC_LOCK = 14;

    /**
     * Whether the {@code CapEff} line of a {@code /proc/<pid>/status} text grants {@code CAP_IPC_LOCK};
     * false when the line is missing or malformed.
     */
    static boolean grantsIpcLock(String status) {
        for (String line : status.split("\n")) {
            if (line.startsWith("CapEff:")) {
                try {
                    long mask = Long.parseUnsignedLong(
                            line.substring("CapEff:".length()).trim(), 16);
                    return (mask & (1L << CAP_IPC_LOCK)) != 0;
                } catch (NumberFormatException e) {
                    return false;
                }
            }
        }
        return false;
    }

    /** One check: its name, whether it passed, what was found and how to fix it. */
    public record Check(String name, boolean passed, String detail, String fix) {}

    /** All checks, in order. */
    public record Result(List<Check> checks) {
        public Result {
            checks = List.copyOf(checks);
        }

        public boolean available() {
            return checks.stream().allMatch(Check::passed);
        }

        public List<Check> failed() {
            return checks.stream().filter(check -> !check.passed()).collect(Collectors.toList());
        }

        /** One line per failed check: {@code - [name] detail. Fix: fix}. */
        public String describeFailures() {
            return failed().stream()
                    .map(check -> " - [" + check.name() + "] " + check.detail() + ". Fix: " + check.fix())
                    .collect(Collectors.joining("\n"));
        }
    }

    public RdmaProbe(Environment environment, long requiredLockedBytes) {
        this.environment = environment;
        this.requiredLockedBytes = requiredLockedBytes;
    }

    /** A probe of this JVM and machine. */
    public static RdmaProbe ofThisMachine(long requiredLockedBytes) {
        return new RdmaProbe(new SystemEnvironment(), requiredLockedBytes);
    }

    public Result probe() {
        List<Check> checks = new ArrayList<>();
        checks.add(disniClass());
        checks.add(exportFlag());
        checks.add(library());
        checks.add(devices());
        checks.add(lockedMemory());
        if (checks.stream().allMatch(Check::passed)) {
            String failure = environment.deepCheck();
            checks.add(new Check(
                    "event-channel",
                    failure == null,
                    failure == null
                            ? "an RDMA event channel opened"
                            : "opening an RDMA event channel failed: " + failure,
                    "check that libdisni was built from DiSNI's v2.1 tag against this machine's libibverbs and"
                            + " librdmacm, and that the RDMA device is up (ibv_devices, rdma link)"));
        }
        return new Result(checks);
    }

    private Check disniClass() {
        boolean present = environment.classPresent(DISNI_CLASS);
        return new Check(
                "disni-class",
                present,
                present ? "DiSNI is on the class path" : "class " + DISNI_CLASS + " is not on the class path",
                "put com.ibm.disni:disni:2.1 on the class path (eve-rdma depends on it)");
    }

    private Check exportFlag() {
        boolean exported = environment.sunNioChExported();
        return new Check(
                "add-exports",
                exported,
                exported
                        ? "java.base exports sun.nio.ch to unnamed modules"
                        : "java.base does not export sun.nio.ch to unnamed modules (DiSNI casts to"
                                + " sun.nio.ch.DirectBuffer)",
                "start the JVM with --add-exports java.base/sun.nio.ch=ALL-UNNAMED (or put it in JDK_JAVA_OPTIONS)");
    }

    private Check library() {
        String name = System.mapLibraryName("disni");
        List<Path> path = environment.libraryPath();
        boolean onPath = path.stream().anyMatch(dir -> Files.isRegularFile(dir.resolve(name)));
        if (onPath) {
            return new Check("libdisni", true, name + " found on java.library.path", "");
        }
        List<Path> elsewhere = environment.otherLibraryDirs().stream()
                .filter(dir -> Files.isRegularFile(dir.resolve(name)))
                .collect(Collectors.toList());
        String detail = name + " is not on java.library.path=" + path
                + (elsewhere.isEmpty() ? "" : " (but it is in " + elsewhere + ")");
        String fix = elsewhere.isEmpty()
                ? "build and install libdisni from DiSNI's v2.1 tag following DiSNI's own instructions (it needs"
                        + " libibverbs and librdmacm), then add its directory to -Djava.library.path or LD_LIBRARY_PATH"
                : "add -Djava.library.path=" + elsewhere.get(0) + " (or set LD_LIBRARY_PATH)";
        return new Check("libdisni", false, detail, fix);
    }

    private Check devices() {
        Path dir = environment.deviceDir();
        List<String> found = new ArrayList<>();
        if (Files.isDirectory(dir)) {
            try (Stream<Path> entries = Files.list(dir)) {
                entries.forEach(entry -> found.add(entry.getFileName().toString()));
            } catch (IOException e) {
                found.clear();
            }
        }
        return new Check(
                "rdma-devices",
                !found.isEmpty(),
                found.isEmpty() ? "no RDMA devices under " + dir : "RDMA devices " + found,
                "install an RDMA NIC (InfiniBand, RoCE, iWARP) with its kernel driver and rdma-core, or create a"
                        + " software device (rdma link add rxe0 type rxe netdev eth0) on a kernel with CONFIG_RDMA_RXE;"
                        + " in a container pass /dev/infiniband");
    }

    private Check lockedMemory() {
        OptionalLong limit = environment.lockedMemoryLimit();
        if (limit.isEmpty()) {
            return new Check("memlock", true, "the locked-memory limit could not be read; assuming enough", "");
        }
        boolean enough = limit.getAsLong() >= requiredLockedBytes;
        if (!enough && environment.canLockBeyondLimit()) {
            return new Check(
                    "memlock",
                    true,
                    "the locked-memory limit is " + limit.getAsLong() + " bytes, but this process has CAP_IPC_LOCK,"
                            + " so the limit does not apply to the rings' " + requiredLockedBytes + " bytes",
                    "");
        }
        return new Check(
                "memlock",
                enough,
                "the locked-memory limit is "
                        + (limit.getAsLong() == Long.MAX_VALUE ? "unlimited" : limit.getAsLong() + " bytes")
                        + ", the rings need " + requiredLockedBytes,
                "raise it (ulimit -l unlimited, LimitMEMLOCK=infinity in systemd, --ulimit memlock=-1 in docker)");
    }

    /** The real machine. */
    static final class SystemEnvironment implements Environment {
        private static final String DEEP_CHECK = "io.eve.rdma.disni.DisniDeepCheck";

        @Override
        public boolean classPresent(String name) {
            try {
                Class.forName(name, false, RdmaProbe.class.getClassLoader());
                return true;
            } catch (ClassNotFoundException | LinkageError e) {
                return false;
            }
        }

        @Override
        public boolean sunNioChExported() {
            Module unnamed = RdmaProbe.class.getClassLoader().getUnnamedModule();
            return Object.class.getModule().isExported("sun.nio.ch", unnamed);
        }

        @Override
        public List<Path> libraryPath() {
            return split(System.getProperty("java.library.path", ""));
        }

        @Override
        public List<Path> otherLibraryDirs() {
            Set<Path> dirs = new LinkedHashSet<>(split(System.getenv().getOrDefault("LD_LIBRARY_PATH", "")));
            for (String dir : List.of(
                    "/usr/local/lib",
                    "/usr/local/lib64",
                    "/usr/lib",
                    "/usr/lib64",
                    "/usr/lib/x86_64-linux-gnu",
                    "/usr/lib/aarch64-linux-gnu")) {
                dirs.add(Path.of(dir));
            }
            return List.copyOf(dirs);
        }

        @Override
        public Path deviceDir() {
            return Path.of("/sys/class/infiniband");
        }

        @Override
        public OptionalLong lockedMemoryLimit() {
            try {
                for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
                    if (line.startsWith("Max locked memory")) {
                        String soft = line.substring("Max locked memory".length())
                                .trim()
                                .split("\\s+")[0];
                        return OptionalLong.of(soft.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(soft));
                    }
                }
            } catch (IOException | RuntimeException e) {
                return OptionalLong.empty();
            }
            return OptionalLong.empty();
        }

        @Override
        public boolean canLockBeyondLimit() {
            try {
                return grantsIpcLock(Files.readString(Path.of("/proc/self/status")));
            } catch (IOException | RuntimeException e) {
                return false;
            }
        }

        @Override
        public String deepCheck() {
            try {
                Object result = Class.forName(DEEP_CHECK).getMethod("run").invoke(null);
                return (String) result;
            } catch (ReflectiveOperationException | LinkageError e) {
                return e.toString();
            }
        }

        private static List<Path> split(String path) {
            List<Path> dirs = new ArrayList<>();
            for (String part : path.split(File.pathSeparator)) {
                if (!part.isBlank()) {
                    dirs.add(Path.of(part));
                }
            }
            return dirs;
        }
    }
}
