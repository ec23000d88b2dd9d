package io.eve.samples.process;

import io.eve.samples.cli.ReplicaLaunch;
import io.eve.verify.auth.MacKeys;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Predicate;
import java.util.stream.IntStream;

/**
 * A primary-backup pair (or a crash or bft cluster, {@link #startQuorum}) of the key-value sample as replica
 * JVMs on 127.0.0.1, started with this
 * JVM's {@code java.home} and class path. Writes the cluster configuration (free ports) and each
 * process's output to its work directory, kills and restarts replicas, and reads their {@code /status}.
 * Closing kills every process it started, and a shutdown hook does the same if the test JVM exits first.
 *
 * <p>Used from the test thread only.
 */
final class ReplicaProcesses implements AutoCloseable {
    /** The key file of a bft cluster, beside its configuration. */
    /** Each node's own authenticator keys, under the work folder ({node}: the node's id). */
    static final String KEYS_FILE = "keys/node-{node}/macs.properties";

    /** How long each replica of {@link #startQuorumOverTls} may take to answer its status after the launch. */
    private static final Duration TLS_START_LIMIT = Duration.ofSeconds(90);

    /** The folder of the TLS bundle {@link #startQuorumOverTls} writes, beside the configuration. */
    static final String BUNDLE = "bundle";

    /** The replicas' JVM options unless a test asks for others: the key-value store's default state fits. */
    private static final List<String> SMALL_HEAP = List.of("-Xmx256m");

    private final Path workDir;
    private final Path config;
    private final Path[] nodeConfigs;
    private final int[] transportPorts;
    private final int metricsPort;
    private final Process[] replicas;
    private List<String> replicaArgs = List.of();
    private List<String> jvmOptions = SMALL_HEAP;
    private final List<Process> started = new ArrayList<>();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    private final Thread killOnExit = new Thread(this::killAll, "kill-replica-processes");
    private int launches;

    private ReplicaProcesses(Path workDir, Path config, Path[] nodeConfigs, int[] transportPorts, int metricsPort) {
        this.workDir = workDir;
        this.config = config;
        this.nodeConfigs = nodeConfigs.clone();
        this.transportPorts = transportPorts;
        this.metricsPort = metricsPort;
        this.replicas = new Process[nodeConfigs.length];
    }

    /** Writes a configuration with free ports into {@code workDir} and starts both replicas. */
    static ReplicaProcesses start(Path workDir) throws IOException, InterruptedException {
        return start(workDir, List.of(), List.of());
    }

    /**
     * As {@link #start(Path)}, with {@code extraConfig} lines in the configuration ({@code app.} settings, say)
     * and {@code replicaArgs} after each replica's command ({@code --app CLASS}, say).
     */
    static ReplicaProcesses start(Path workDir, List<String> extraConfig, List<String> replicaArgs)
            throws IOException, InterruptedException {
        return start(workDir, extraConfig, replicaArgs, SMALL_HEAP);
    }

    /** As {@link #start(Path, List, List)}, each replica JVM started with {@code jvmOptions} ({@code -Xmx2g}, say). */
    static ReplicaProcesses start(
            Path workDir, List<String> extraConfig, List<String> replicaArgs, List<String> jvmOptions)
            throws IOException, InterruptedException {
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
                        "heartbeat.interval-ms=100",
                        "failure.timeout-ms=2000",
                        "metrics.port=" + ports[2],
                        String.join("\n", extraConfig),
                        ""),
                StandardCharsets.UTF_8);
        return start(
                workDir,
                config,
                new Path[] {config, config},
                new int[] {ports[0], ports[1]},
                ports[2],
                replicaArgs,
                jvmOptions);
    }

    /**
     * Every message between the replicas of a bft cluster is authenticated (docs/quorum.md): fresh keys for
     * nodes {@code 0..count-1} per run, one file per node ({@link #KEYS_FILE}) in the work folder {@code dir}.
     */
    static void writeKeys(Path dir, int count) throws IOException {
        Path keys = dir.resolve("keys");
        if (Files.exists(keys)) {
            try (java.util.stream.Stream<Path> files = Files.walk(keys)) {
                for (Path file :
                        files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(file);
                }
            }
        }
        MacKeys.generate(IntStream.range(0, count).toArray(), new SecureRandom())
                .writeNodeFiles(keys);
    }

    /**
     * A cluster of the quorum profile {@code profile} ("crash": 3 processes, "bft": 4) with free ports, a
     * failure (view) timeout of 2 s and retransmissions every 50 ms, started and answering its status.
     */
    static ReplicaProcesses startQuorum(Path workDir, String profile) throws IOException, InterruptedException {
        return startQuorum(workDir, profile, List.of(), List.of());
    }

    /** As {@link #startQuorum(Path, String)}, with extra configuration lines and replica arguments. */
    static ReplicaProcesses startQuorum(
            Path workDir, String profile, List<String> extraConfig, List<String> replicaArgs)
            throws IOException, InterruptedException {
        return startQuorum(workDir, profile, profile.equals("bft") ? 4 : 3, extraConfig, replicaArgs);
    }

    /**
     * As {@link #startQuorum(Path, String, List, List)} with {@code count} nodes, for {@code quorum.u} above 1
     * in {@code extraConfig} (the first nodes take the roles, as the configuration's defaults give them).
     */
    static ReplicaProcesses startQuorum(
            Path workDir, String profile, int count, List<String> extraConfig, List<String> replicaArgs)
            throws IOException, InterruptedException {
        Files.createDirectories(workDir);
        int[] ports = ReplicaLaunch.freePorts(count);
        List<String> nodes = new ArrayList<>();
        for (int node = 0; node < count; node++) {
            nodes.add(node + "@127.0.0.1:" + ports[node]);
        }
        Path config = workDir.resolve("cluster.properties");
        Files.writeString(
                config,
                String.join(
                        "\n",
                        "profile=" + profile,
                        "nodes=" + String.join(", ", nodes),
                        "executor.threads=4",
                        "heartbeat.interval-ms=50",
                        "failure.timeout-ms=2000",
                        "metrics.port=" + ports[count],
                        String.join("\n", extraConfig),
                        profile.equals("bft") ? "auth.keys-file=" + KEYS_FILE + "\n" : ""),
                StandardCharsets.UTF_8);
        if (profile.equals("bft")) {
            writeKeys(workDir, count);
        }
        Path[] configs = new Path[count];
        java.util.Arrays.fill(configs, config);
        return start(
                workDir, config, configs, java.util.Arrays.copyOf(ports, count), ports[count], replicaArgs, SMALL_HEAP);
    }

    /**
     * A cluster of the quorum profile {@code profile} with mutual TLS on every connection and each node's own
     * bundle folder (docs/operations.md, "Security"), written into {@code workDir/bundle} as {@code ./eve certs}
     * writes it (for bft with each node's authenticator keys, read from there), with one client identity; only
     * nodes {@code 0..launched-1} are started, the test plays the others with their own bundles.
     */
    static ReplicaProcesses startQuorumOverTls(Path workDir, String profile, int launched)
            throws IOException, InterruptedException {
        Files.createDirectories(workDir);
        int count = profile.equals("bft") ? 4 : 3;
        int[] ports = ReplicaLaunch.freePorts(count);
        List<String> nodes = new ArrayList<>();
        for (int node = 0; node < count; node++) {
            nodes.add(node + "@127.0.0.1:" + ports[node]);
        }
        Path config = workDir.resolve("cluster.properties");
        Files.writeString(
                config,
                String.join(
                        "\n",
                        "profile=" + profile,
                        "nodes=" + String.join(", ", nodes),
                        "executor.threads=4",
                        "heartbeat.interval-ms=50",
                        "failure.timeout-ms=2000",
                        "metrics.port=" + ports[count],
                        "tls.enabled=on",
                        "tls.dir=" + BUNDLE,
                        ""),
                StandardCharsets.UTF_8);
        io.eve.server.security.Bundles.validFor(Duration.ofDays(1))
                .write(io.eve.config.ClusterConfig.load(config), workDir.resolve(BUNDLE), 1, profile.equals("bft"));
        Path[] configs = new Path[launched];
        java.util.Arrays.fill(configs, config);
        // Three JVMs loading TLS material and Ed25519 keys at once took more than 30 s to answer at load 40-45.
        return start(
                workDir,
                config,
                configs,
                java.util.Arrays.copyOf(ports, count),
                ports[count],
                List.of(),
                SMALL_HEAP,
                TLS_START_LIMIT);
    }

    /**
     * Starts every replica, each with its own configuration ({@code nodeConfigs[n]}, which may route its
     * links through proxies); {@code clientConfig} is what clients read.
     */
    static ReplicaProcesses start(
            Path workDir, Path clientConfig, Path[] nodeConfigs, int[] transportPorts, int metricsPort)
            throws IOException, InterruptedException {
        return start(workDir, clientConfig, nodeConfigs, transportPorts, metricsPort, List.of(), SMALL_HEAP);
    }

    private static ReplicaProcesses start(
            Path workDir,
            Path clientConfig,
            Path[] nodeConfigs,
            int[] transportPorts,
            int metricsPort,
            List<String> replicaArgs,
            List<String> jvmOptions)
            throws IOException, InterruptedException {
        return start(
                workDir,
                clientConfig,
                nodeConfigs,
                transportPorts,
                metricsPort,
                replicaArgs,
                jvmOptions,
                Duration.ofSeconds(30));
    }

    private static ReplicaProcesses start(
            Path workDir,
            Path clientConfig,
            Path[] nodeConfigs,
            int[] transportPorts,
            int metricsPort,
            List<String> replicaArgs,
            List<String> jvmOptions,
            Duration startLimit)
            throws IOException, InterruptedException {
        ReplicaProcesses cluster =
                new ReplicaProcesses(workDir, clientConfig, nodeConfigs, transportPorts, metricsPort);
        cluster.replicaArgs = List.copyOf(replicaArgs);
        cluster.jvmOptions = List.copyOf(jvmOptions);
        Runtime.getRuntime().addShutdownHook(cluster.killOnExit);
        try {
            for (int node = 0; node < nodeConfigs.length; node++) {
                cluster.launch(node, false);
            }
            for (int node = 0; node < nodeConfigs.length; node++) {
                cluster.awaitStatus(node, status -> true, startLimit);
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    Path config() {
        return config;
    }

    InetSocketAddress transportAddress(int node) {
        return new InetSocketAddress("127.0.0.1", transportPorts[node]);
    }

    Path log(int node) {
        return workDir.resolve("node-" + node + ".log");
    }

    /**
     * The node that reports itself primary (waiting up to {@code limit} for one to): a slow start under
     * load may make node 1 take over before node 0 is heard, so tests ask rather than assume.
     */
    int primary(Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() - deadline < 0) {
            for (int node = 0; node < replicas.length; node++) {
                if (status(node).map(ReplicaLaunch.Status::primary).orElse(false)) {
                    return node;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no replica reports itself primary within " + limit + "; logs in " + workDir);
    }

    /** Kills replica {@code node} at once, like {@code kill -9}, and waits until it is gone. */
    void kill(int node) throws InterruptedException {
        Process process = replicas[node];
        process.destroyForcibly();
        process.waitFor();
    }

    /**
     * Kills every process of {@code nodes} with SIGKILL before waiting for any of them, so none outlives the
     * others by more than the few microseconds between two signals (a power cut of the whole cluster).
     */
    void killAtOnce(int... nodes) throws InterruptedException {
        for (int node : nodes) {
            replicas[node].destroyForcibly();
        }
        for (int node : nodes) {
            replicas[node].waitFor();
        }
    }

    /** Stops replica {@code node} with SIGSTOP: alive, but silent, as in a long GC pause. */
    void pause(int node) throws IOException, InterruptedException {
        signal(node, "-STOP");
    }

    /** Lets a paused replica go on (SIGCONT). */
    void resume(int node) throws IOException, InterruptedException {
        signal(node, "-CONT");
    }

    private void signal(int node, String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", signal, Long.toString(replicas[node].pid()))
                .redirectErrorStream(true)
                .start();
        if (kill.waitFor() != 0) {
            throw new IOException("kill " + signal + " " + replicas[node].pid() + " failed: "
                    + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    /** Starts node {@code node} again as it was first started (with {@code storage.dir} it recovers its disk). */
    void restart(int node) throws IOException {
        launch(node, false);
    }

    /** Starts replica {@code node} again with {@code --join}. */
    void restartJoining(int node) throws IOException {
        launch(node, true);
    }

    /** The replica's {@code /status}, or empty while it does not answer. */
    Optional<ReplicaLaunch.Status> status(int node) throws InterruptedException {
        return statusJson(node).map(ReplicaLaunch.Status::parse);
    }

    /** The replica's {@code /status} with every field (its {@code Replica.Role} among them), or empty. */
    Optional<io.eve.ReplicaStatus> fullStatus(int node) throws InterruptedException {
        return statusJson(node).map(io.eve.ReplicaStatus::fromJson);
    }

    private Optional<String> statusJson(int node) throws InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + (metricsPort + node) + "/status"))
                .timeout(Duration.ofSeconds(1))
                .build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? Optional.of(response.body()) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * The sum of the samples of {@code name} (Prometheus text format, e.g. {@code eve_auth_rejected_total})
     * on the replica's {@code /metrics}; empty while it does not answer or has no such metric.
     */
    OptionalDouble metric(int node, String name) throws InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + (metricsPort + node) + "/metrics"))
                .timeout(Duration.ofSeconds(1))
                .build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                return OptionalDouble.empty();
            }
            return response.body()
                    .lines()
                    .filter(line -> line.startsWith(name + "{") || line.startsWith(name + " "))
                    .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                    .reduce(Double::sum);
        } catch (IOException e) {
            return OptionalDouble.empty();
        }
    }

    /**
     * As {@link #metric(int, String)}, only the samples whose labels include {@code label} (such as {@code
     * reason="impostor"}); 0 when the replica answers and has none.
     */
    OptionalDouble metric(int node, String name, String label) throws InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + (metricsPort + node) + "/metrics"))
                .timeout(Duration.ofSeconds(1))
                .build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                return OptionalDouble.empty();
            }
            return OptionalDouble.of(response.body()
                    .lines()
                    .filter(line -> line.startsWith(name + "{") && line.contains(label))
                    .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                    .sum());
        } catch (IOException e) {
            return OptionalDouble.empty();
        }
    }

    /** Polls the replica's status until {@code condition} holds; fails naming the last status seen. */
    ReplicaLaunch.Status awaitStatus(int node, Predicate<ReplicaLaunch.Status> condition, Duration limit)
            throws InterruptedException {
        return awaitStatus(node, this::status, condition, limit);
    }

    /** As {@link #awaitStatus(int, Predicate, Duration)}, on every field of the status. */
    io.eve.ReplicaStatus awaitFullStatus(int node, Predicate<io.eve.ReplicaStatus> condition, Duration limit)
            throws InterruptedException {
        return awaitStatus(node, this::fullStatus, condition, limit);
    }

    /** How a status is read: empty while the replica does not answer. */
    @FunctionalInterface
    private interface StatusReader<S> {
        Optional<S> read(int node) throws InterruptedException;
    }

    private <S> S awaitStatus(int node, StatusReader<S> reader, Predicate<S> condition, Duration limit)
            throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        Optional<S> last = Optional.empty();
        while (System.nanoTime() - deadline < 0) {
            last = reader.read(node);
            if (last.isPresent() && condition.test(last.get())) {
                return last.get();
            }
            Thread.sleep(50);
        }
        throw new AssertionError("replica " + node + " did not reach the expected status within " + limit
                + "; last status " + last.map(Object::toString).orElse("none") + "; " + state(node) + "; log in "
                + log(node) + ", ending:\n" + logTail(node, 20));
    }

    /** Whether the process of {@code node} still runs, or how it ended. */
    private String state(int node) {
        Process process = replicas[node];
        if (process == null) {
            return "never started";
        }
        return process.isAlive()
                ? "process " + process.pid() + " alive, its main thread:\n" + mainThread(node, process)
                : "process " + process.pid() + " exited with " + process.exitValue();
    }

    /**
     * The stack of the main thread of a live replica (where a start that never answers is stuck), from a
     * thread dump by {@code jcmd} written beside the node's log.
     */
    private String mainThread(int node, Process process) {
        Path dump = workDir.resolve("node-" + node + "-threads.txt");
        try {
            Process jcmd = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "jcmd")
                                    .toString(),
                            Long.toString(process.pid()),
                            "Thread.print")
                    .redirectErrorStream(true)
                    .redirectOutput(dump.toFile())
                    .start();
            if (!jcmd.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
                jcmd.destroyForcibly();
                return "(jcmd did not answer in 20 s)";
            }
            List<String> lines = Files.readAllLines(dump, StandardCharsets.UTF_8);
            int start = IntStream.range(0, lines.size())
                    .filter(i -> lines.get(i).startsWith("\"main\""))
                    .findFirst()
                    .orElse(-1);
            if (start < 0) {
                return "(no main thread in " + dump + ")";
            }
            int end = start + 1;
            while (end < lines.size() && !lines.get(end).isBlank() && end - start < 30) {
                end++;
            }
            return String.join("\n", lines.subList(start, end));
        } catch (IOException | java.io.UncheckedIOException e) {
            return "(no thread dump: " + e + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(no thread dump: interrupted)";
        }
    }

    /** The last {@code lines} lines of the node's log (for a failure message: CI keeps no files). */
    String logTail(int node, int lines) {
        try {
            List<String> all = Files.readAllLines(log(node), StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | java.io.UncheckedIOException e) {
            return "(cannot read the log: " + e + ")";
        }
    }

    /**
     * Waits until both replicas report the same last stable batch (and that is at least {@code atLeast}),
     * and returns both statuses then; their roots are for the caller to compare.
     */
    ReplicaLaunch.Status[] awaitSameStableSeq(long atLeast, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        ReplicaLaunch.Status[] last = new ReplicaLaunch.Status[2];
        while (System.nanoTime() - deadline < 0) {
            last[0] = status(0).orElse(null);
            last[1] = status(1).orElse(null);
            if (last[0] != null
                    && last[1] != null
                    && last[0].stableSeq() >= atLeast
                    && last[0].stableSeq() == last[1].stableSeq()) {
                return last;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the replicas did not reach the same stable batch (at least " + atLeast + ") within "
                + limit + ": node 0 " + last[0] + ", node 1 " + last[1] + "; logs in " + workDir);
    }

    /**
     * Waits until the replicas {@code nodes} report the same last stable batch, at least {@code atLeast},
     * with the same state root, and returns their statuses then.
     */
    ReplicaLaunch.Status[] awaitSameState(long atLeast, Duration limit, int... nodes) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        ReplicaLaunch.Status[] last = new ReplicaLaunch.Status[nodes.length];
        while (System.nanoTime() - deadline < 0) {
            boolean same = true;
            for (int i = 0; i < nodes.length; i++) {
                last[i] = status(nodes[i]).orElse(null);
                same &= last[i] != null
                        && last[i].stableSeq() >= atLeast
                        && last[i].stableSeq() == last[0].stableSeq()
                        && last[i].stableRoot().equals(last[0].stableRoot());
            }
            if (same) {
                return last;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the replicas " + java.util.Arrays.toString(nodes) + " did not reach the same state"
                + " (at least batch " + atLeast + ") within " + limit + ": " + java.util.Arrays.toString(last)
                + "; logs in " + workDir);
    }

    @Override
    public void close() {
        killAll();
        try {
            Runtime.getRuntime().removeShutdownHook(killOnExit);
        } catch (IllegalStateException shuttingDown) {
            // The hook is running or has run: nothing is left to remove.
        }
    }

    private void killAll() {
        for (Process process : started) {
            // A paused process would die only when continued; SIGKILL works on stopped processes anyway.
            process.destroyForcibly();
        }
        for (Process process : started) {
            try {
                process.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void launch(int node, boolean join) throws IOException {
        List<String> command = ReplicaLaunch.replicaCommand(nodeConfigs[node], node, join, jvmOptions, replicaArgs);
        // Every launch appends to the node's one log, so a restart's output follows the crash it recovers from.
        Path log = log(node);
        Files.writeString(
                log,
                String.format(
                        "---- launch %d: %s%n",
                        ++launches, join ? "restart with --join" : "start (or restart from disk)"),
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        started.add(process);
        replicas[node] = process;
    }
}
