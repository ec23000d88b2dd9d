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
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The README's main job with real processes: two replica JVMs on 127.0.0.1, a client workload with a
 * progress bar, SIGKILL of the primary a third of the way, the backup taking over, the old primary
 * restarted and rejoining by incremental state transfer, then a summary with throughput, latency,
 * rollbacks, transfers, and whether both replicas' committed state digests are equal.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description = "Run a two-replica cluster as separate processes through a crash and a rejoin.")
final class DemoCommand implements Callable<Integer> {
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
                        ""),
                StandardCharsets.UTF_8);
        int metrics = ports[2];
        out.printf(
                "Eve for the JVM: a primary-backup pair of the key-value store as two processes on 127.0.0.1"
                        + " (config %s, logs in %s)%n",
                config, workDir);
        Process[] replicas = {start(config, 0, false), start(config, 1, false)};
        Runtime.getRuntime().addShutdownHook(new Thread(() -> processes.forEach(Process::destroyForcibly)));
        try {
            awaitStatus(metrics, 0);
            awaitStatus(metrics, 1);
            out.printf(
                    "both replicas up (node 0 primary); %d clients for %d s, 200 us of work per request%n",
                    clients, seconds);
            int crashAt = seconds / 3;
            int restartAt = 2 * seconds / 3;
            LoadCommand.Result load = LoadCommand.run(
                    config,
                    5_000_000 + (int) (ProcessHandle.current().pid() % 1000) * 1000,
                    clients,
                    10_000,
                    seconds,
                    out,
                    second -> {
                        if (second == crashAt) {
                            out.println("-- SIGKILL node 0 (the primary)");
                            replicas[0].destroyForcibly();
                        } else if (second == restartAt) {
                            out.println("-- restarting node 0: it rejoins by incremental state transfer");
                            replicas[0] = start(config, 0, true);
                        }
                        announce(out, metrics, second > crashAt, second > restartAt);
                    });
            return summarize(out, metrics, load);
        } finally {
            processes.forEach(Process::destroyForcibly);
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
                            "-- node 0 caught up by state transfer (%,d bytes) and verifies every batch again%n",
                            status.transferBytes());
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
        if (first == null || second == null) {
            out.println("RESULT: a replica did not report its state; see the logs in " + workDir);
            return false;
        }
        boolean equal =
                first.stableSeq() == second.stableSeq() && first.stableRoot().equals(second.stableRoot());
        out.printf(
                "RESULT: %,d requests committed, %,.0f/s, latency p50 %.2f ms p99 %.2f ms, %d wrong replies,"
                        + " %d rollbacks, node 0 rejoined with %d transfer(s) of %,d bytes; batch %d: digests %s%s%n",
                load.acknowledged(),
                load.perSecond(),
                load.p50Millis(),
                load.p99Millis(),
                load.wrong(),
                first.rollbacks() + second.rollbacks(),
                first.transfers(),
                first.transferBytes(),
                first.stableSeq(),
                equal ? "equal " : "DIFFERENT ",
                first.stableRoot().substring(0, 16));
        return equal && load.wrong() == 0;
    }

    private Process start(Path config, int node, boolean join) {
        List<String> command = ReplicaLaunch.replicaCommand(config, node, join, List.of());
        File log = workDir.resolve("node-" + node + (join ? "-rejoined" : "") + ".log")
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
