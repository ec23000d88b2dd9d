package io.eve.samples.cli;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The README's main job with real processes: two durable replica JVMs on 127.0.0.1 (their {@code storage.dir}
 * in a temporary folder, deleted at the end), a client workload with a progress bar, SIGKILL of the primary a
 * third of the way, the backup taking over, the old primary restarted from its disk and rejoining by the
 * changes since the batch it recovered, then a summary with throughput, latency, rollbacks, the bytes the
 * rejoin moved against the size of the state, and whether both replicas' committed state digests are equal.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description = "Run a two-replica cluster as separate processes through a crash and a rejoin from disk.")
final class DemoCommand implements Callable<Integer> {
    /** The store the replicas hold (their --objects and --object-size): the state a full transfer moves. */
    private static final int OBJECTS = 50_000;

    private static final int OBJECT_SIZE = 1024;
    private static final long STATE_BYTES = (long) OBJECTS * OBJECT_SIZE;
    private static final int CHECKPOINT_EVERY = 200;
    private static final Pattern RECOVERED =
            Pattern.compile("recovered batch (\\d+) .*checkpoint at (\\d+), (\\d+) logged batches replayed");

    @Option(
            names = "--seconds",
            defaultValue = "18",
            description = "Length of the workload (default ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--clients", defaultValue = "16", description = "Concurrent clients (default ${DEFAULT-VALUE}).")
    int clients;

    @Option(names = "--work-dir", defaultValue = "target/eve-demo", description = "Where configuration and logs go.")
    Path workDir;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final List<Process> processes = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        return run(System.out) ? 0 : 1;
    }

    boolean run(PrintStream out) throws Exception {
        Files.createDirectories(workDir);
        Path storage = Files.createTempDirectory("eve-demo-storage-");
        try {
            return run(out, storage);
        } finally {
            deleteTree(storage);
        }
    }

    private boolean run(PrintStream out, Path storage) throws Exception {
        int[] ports = ReplicaLaunch.freePorts();
        Path config = workDir.resolve("cluster.properties");
        Files.writeString(
                config,
                String.join(
                        "\n",
                        "profile=primary-backup",
                        "nodes=0@127.0.0.1:" + ports[0] + ", 1@127.0.0.1:" + ports[1],
                        "executor.threads=8",
                        "failure.timeout-ms=1000",
                        "heartbeat.interval-ms=100",
                        "metrics.port=" + ports[2],
                        "storage.dir=" + storage.toAbsolutePath().toString().replace('\\', '/'),
                        "storage.sync=batch",
                        "storage.checkpoint-every=" + CHECKPOINT_EVERY,
                        // A transfer is one frame: room for every object changed, on a fast machine too.
                        "transport.max-frame-bytes=" + 2 * STATE_BYTES,
                        ""),
                StandardCharsets.UTF_8);
        int metrics = ports[2];
        out.printf(
                "Eve for the JVM: a primary-backup pair of the key-value store as two processes on 127.0.0.1"
                        + " (config %s, logs in %s, storage in %s, deleted at the end)%n",
                config, workDir, storage);
        Process[] replicas = {start(config, 0, false), start(config, 1, false)};
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stopAll();
            try {
                deleteTree(storage);
            } catch (IOException e) {
                // Interrupted demo: the temporary folder stays for the system to clean.
            }
        }));
        try {
            awaitStatus(metrics, 0);
            awaitStatus(metrics, 1);
            out.printf(
                    "both replicas up (node 0 primary); %d clients for %d s, 200 us of work per request%n",
                    clients, seconds);
            int crashAt = seconds / 3;
            int restartAt = Math.max(crashAt + 1, seconds / 2);
            LoadCommand.Result load = LoadCommand.run(
                    config,
                    5_000_000 + (int) (ProcessHandle.current().pid() % 1000) * 1000,
                    clients,
                    OBJECTS,
                    seconds,
                    out,
                    second -> {
                        if (second == crashAt) {
                            out.println("-- SIGKILL node 0 (the primary)");
                            replicas[0].destroyForcibly();
                        } else if (second == restartAt) {
                            out.println("-- restarting node 0 from its disk: it recovers its batches and rejoins by"
                                    + " the changes since");
                            replicas[0] = start(config, 0, true);
                        }
                        announce(out, metrics, second > crashAt, second > restartAt);
                    });
            return summarize(out, metrics, load);
        } finally {
            stopAll();
        }
    }

    private boolean tookOver;
    private boolean rejoined;

    /** Says once when node 1 has taken over and once when node 0 has caught up. */
    private void announce(PrintStream out, int metrics, boolean afterCrash, boolean afterRestart) {
        try {
            if (afterCrash && !tookOver) {
                ReplicaLaunch.Status status = status(metrics, 1);
                if (status != null && status.primary()) {
                    tookOver = true;
                    out.printf("-- node 1 took over as primary in view %d%n", status.view());
                }
            }
            if (afterRestart && !rejoined) {
                ReplicaLaunch.Status status = status(metrics, 0);
                if (status != null && status.transfers() > 0) {
                    rejoined = true;
                    out.printf(
                            "-- node 0 recovered %s and caught up by a transfer of %,d bytes (the state is %,d);"
                                    + " it verifies every batch again%n",
                            recovered(), status.transferBytes(), STATE_BYTES);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean summarize(PrintStream out, int metrics, LoadCommand.Result load) throws Exception {
        ReplicaLaunch.Status first = null;
        ReplicaLaunch.Status second = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            first = status(metrics, 0);
            second = status(metrics, 1);
            if (first != null && second != null && first.stableSeq() == second.stableSeq()) {
                break;
            }
            Thread.sleep(100);
        }
        announce(out, metrics, true, true); // a rejoin that ends after the load is told here
        if (first == null || second == null) {
            out.println("RESULT: a replica did not report its state; see the logs in " + workDir);
            return false;
        }
        boolean equal =
                first.stableSeq() == second.stableSeq() && first.stableRoot().equals(second.stableRoot());
        out.printf(
                "RESULT: %,d requests committed, %,.0f/s, latency p50 %.2f ms p99 %.2f ms, %d wrong replies,"
                        + " %d rollbacks, node 0 rejoined from disk with %d transfer(s) of %,d bytes (%.1f%% of the"
                        + " %,d-byte state); batch %d: digests %s%s%n",
                load.acknowledged(),
                load.perSecond(),
                load.p50Millis(),
                load.p99Millis(),
                load.wrong(),
                first.rollbacks() + second.rollbacks(),
                first.transfers(),
                first.transferBytes(),
                100.0 * first.transferBytes() / STATE_BYTES,
                STATE_BYTES,
                first.stableSeq(),
                equal ? "equal " : "DIFFERENT ",
                first.stableRoot().substring(0, 16));
        return equal && load.wrong() == 0;
    }

    /** Starts replica {@code node}; {@code restart} only names its log apart from the first run's. */
    private Process start(Path config, int node, boolean restart) {
        List<String> command = ReplicaLaunch.replicaCommand(
                config,
                node,
                false, // with storage.dir a replica that recovered anything joins by itself
                List.of(),
                List.of("--objects", Integer.toString(OBJECTS), "--object-size", Integer.toString(OBJECT_SIZE)));
        File log = workDir.resolve("node-" + node + (restart ? "-rejoined" : "") + ".log")
                .toFile();
        try {
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log)
                    .start();
            processes.add(process);
            return process;
        } catch (IOException e) {
            throw new IllegalStateException("cannot start replica " + node + ": " + e.getMessage(), e);
        }
    }

    /** What the restarted node's log says it recovered from its disk, or "its disk" before it says. */
    private String recovered() {
        try {
            for (String line : Files.readAllLines(rejoinedLog(), StandardCharsets.UTF_8)) {
                Matcher matcher = RECOVERED.matcher(line);
                if (matcher.find()) {
                    return String.format(
                            "batch %s from its disk (checkpoint at %s, %s logged batches replayed)",
                            matcher.group(1), matcher.group(2), matcher.group(3));
                }
            }
        } catch (IOException e) {
            // The log is the demo's own file; unreadable, the line just says less.
        }
        return "its disk";
    }

    private Path rejoinedLog() {
        return workDir.resolve("node-0-rejoined.log");
    }

    /** Kills every replica started and waits until each is gone, so none writes to storage any more. */
    private void stopAll() {
        processes.forEach(Process::destroyForcibly);
        for (Process process : processes) {
            try {
                process.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    private void awaitStatus(int metrics, int node) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (status(metrics, node) == null) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "replica " + node + " did not come up within 30 s; see its log in " + workDir);
            }
            Thread.sleep(100);
        }
    }

    private ReplicaLaunch.Status status(int metrics, int node) throws InterruptedException {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + (metrics + node) + "/status"))
                    .timeout(Duration.ofSeconds(2))
                    .build();
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? ReplicaLaunch.Status.parse(response.body()) : null;
        } catch (IOException e) {
            return null;
        }
    }
}
