package io.eve.samples.cli;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
        int[] ports = freePorts(3);
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
                String status = status(metrics, 1);
                if (status != null && field(status, "primary").equals("true")) {
                    tookOver = true;
                    out.printf("-- node 1 took over as primary in view %s%n", field(status, "view"));
                }
            }
            if (afterRestart && !rejoined) {
                String status = status(metrics, 0);
                if (status != null && !field(status, "transfers").equals("0")) {
                    rejoined = true;
                    out.printf(
                            "-- node 0 caught up by state transfer (%,d bytes) and verifies every batch again%n",
                            Long.parseLong(field(status, "transferBytes")));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean summarize(PrintStream out, int metrics, LoadCommand.Result load) throws Exception {
        String first = null;
        String second = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            first = status(metrics, 0);
            second = status(metrics, 1);
            if (first != null && second != null && field(first, "stableSeq").equals(field(second, "stableSeq"))) {
                break;
            }
            Thread.sleep(100);
        }
        if (first == null || second == null) {
            out.println("RESULT: a replica did not report its state");
            return false;
        }
        boolean equal = field(first, "stableSeq").equals(field(second, "stableSeq"))
                && field(first, "stableRoot").equals(field(second, "stableRoot"));
        long rollbacks = Long.parseLong(field(first, "rollbacks")) + Long.parseLong(field(second, "rollbacks"));
        out.printf(
                "RESULT: %,d requests committed, %,.0f/s, latency p50 %.2f ms p99 %.2f ms, %d wrong replies,"
                        + " %d rollbacks, node 0 rejoined with %s transfer(s) of %,d bytes; batch %s: digests %s%s%n",
                load.acknowledged(),
                load.perSecond(),
                load.p50Millis(),
                load.p99Millis(),
                load.wrong(),
                rollbacks,
                field(first, "transfers"),
                Long.parseLong(field(first, "transferBytes")),
                field(first, "stableSeq"),
                equal ? "equal " : "DIFFERENT ",
                field(first, "stableRoot").substring(0, 16));
        return equal && load.wrong() == 0;
    }

    private Process start(Path config, int node, boolean join) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                EveKv.class.getName(),
                "replica",
                "--config",
                config.toString(),
                "--node",
                Integer.toString(node)));
        if (join) {
            command.add("--join");
        }
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

    private String status(int metrics, int node) throws InterruptedException {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + (metrics + node) + "/status"))
                    .timeout(Duration.ofSeconds(2))
                    .build();
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? response.body() : null;
        } catch (IOException e) {
            return null;
        }
    }

    private static String field(String json, String name) {
        Matcher matcher = Pattern.compile("\"" + name + "\": \"?([^,\"}]*)").matcher(json);
        return matcher.find() ? matcher.group(1) : "";
    }

    private static int[] freePorts(int count) throws IOException {
        int[] ports = new int[count];
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0);
                sockets.add(socket);
                ports[i] = socket.getLocalPort();
            }
        } finally {
            for (ServerSocket socket : sockets) {
                socket.close();
            }
        }
        // Node 1's metrics port is metrics.port + 1: make sure it is free too.
        try (ServerSocket next = new ServerSocket(ports[count - 1] + 1)) {
            return next.getLocalPort() > 0 ? ports : freePorts(count);
        } catch (IOException taken) {
            return freePorts(count);
        }
    }
}
