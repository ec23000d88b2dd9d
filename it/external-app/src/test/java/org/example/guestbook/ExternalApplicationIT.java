package org.example.guestbook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.eve.Replica;
import io.eve.ReplicaClosedException;
import io.eve.ReplicaStatus;
import io.eve.client.EveClient;
import io.eve.config.ClusterConfig;
import io.eve.server.EveReplica;
import java.io.File;
import java.io.IOException;
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
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An application outside the project's packages, depending only on {@code io.eve:eve-server}, deployed as a
 * user would: embedded with {@link EveReplica#builder()}, and as separate processes through the launcher with
 * its classes given by {@code --classpath} (they are not on the launcher's own class path).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExternalApplicationIT {
    private static final Duration LIMIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void shouldServeThroughTheBuilder() throws Exception {
        Path config = writeConfig();
        List<Replica> replicas = new ArrayList<>();
        try {
            for (int node = 0; node < 2; node++) {
                replicas.add(EveReplica.builder()
                        .config(config)
                        .node(node)
                        .application(Guestbook::new)
                        .start());
            }
            try (EveClient client = EveClient.connect(ClusterConfig.load(config))) {
                assertThat(text(client.call(Guestbook.sign("ann", "hello")).payload()))
                        .isEqualTo("1");
                assertThat(text(client.call(Guestbook.sign("ann", "hello again"))
                                .payload()))
                        .isEqualTo("2");
                assertThat(text(client.call(Guestbook.read("ann")).payload())).isEqualTo("hello again");
                assertThat(text(client.call(Guestbook.read("bob")).payload())).isEqualTo("welcome");
            }
            await("one primary and equal committed roots", () -> {
                ReplicaStatus first = replicas.get(0).status();
                ReplicaStatus second = replicas.get(1).status();
                return first.primary() != second.primary() && sameState(first, second);
            });
        } finally {
            replicas.forEach(Replica::close);
        }
        long start = System.nanoTime();
        assertThatThrownBy(() -> replicas.get(0).status())
                .isInstanceOf(ReplicaClosedException.class)
                .hasMessageContaining("node 0 is closed");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
    }

    @Test
    void shouldServeThroughTheLauncher() throws Exception {
        Path config = writeConfig();
        ClusterConfig cluster = ClusterConfig.load(config);
        List<Process> processes = new ArrayList<>();
        try {
            for (int node = 0; node < 2; node++) {
                processes.add(launch(
                        "replica-" + node,
                        "replica",
                        "--app",
                        Guestbook.class.getName(),
                        "--classpath",
                        ownClasses(),
                        "--config",
                        config.toString(),
                        "--node",
                        Integer.toString(node),
                        "--status-every-ms",
                        "500"));
            }
            assertThat(client(config, "sign", "ann", "from the launcher")).isEqualTo("1");
            assertThat(client(config, "read", "ann")).isEqualTo("from the launcher");
            HttpClient http = HttpClient.newHttpClient();
            await("equal committed roots on both processes", () -> {
                ReplicaStatus first = status(http, cluster.metricsPort());
                ReplicaStatus second = status(http, cluster.metricsPort() + 1);
                return first != null && second != null && sameState(first, second);
            });
        } finally {
            for (Process process : processes) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** Runs the guest book's client command through the launcher in its own JVM; its one line of output. */
    private String client(Path config, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                "client",
                "--app-client",
                GuestbookClient.class.getName(),
                "--classpath",
                ownClasses(),
                "--config",
                config.toString()));
        command.addAll(List.of(args));
        Process process = launch("client-" + String.join("-", args).replace(' ', '_'), command.toArray(String[]::new));
        assertThat(process.waitFor(60, TimeUnit.SECONDS))
                .as("the client finished")
                .isTrue();
        Path log = dir.resolve("client-" + String.join("-", args).replace(' ', '_') + ".log");
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8).stream()
                .filter(line -> !line.startsWith("[")) // slf4j-simple's log lines
                .toList();
        assertThat(process.exitValue())
                .as("client exit status; output %s", lines)
                .isZero();
        return lines.get(lines.size() - 1);
    }

    private Process launch(String name, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-cp",
                launcherClassPath(),
                "io.eve.server.launch.Launcher"));
        command.addAll(List.of(args));
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve(name + ".log").toFile())
                .start();
    }

    /** This JVM's class path without the application's own classes: the launcher must load them from --classpath. */
    private static String launcherClassPath() {
        List<String> entries = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path path = Path.of(entry).toAbsolutePath().normalize();
            if (!path.equals(Path.of(ownClasses())) && !path.endsWith(Path.of("target", "test-classes"))) {
                entries.add(entry);
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    private static String ownClasses() {
        return Path.of("target", "classes").toAbsolutePath().normalize().toString();
    }

    private Path writeConfig() throws IOException {
        int[] ports = freePorts();
        Path config = dir.resolve("guestbook.properties");
        Files.writeString(
                config,
                String.join(
                        "\n",
                        "profile=primary-backup",
                        "nodes=0@127.0.0.1:" + ports[0] + ", 1@127.0.0.1:" + ports[1],
                        "executor.threads=2",
                        "failure.timeout-ms=3000",
                        "metrics.port=" + ports[2],
                        "app.greeting=welcome",
                        ""),
                StandardCharsets.UTF_8);
        return config;
    }

    /**
     * Two transport ports and a metrics port m with m + 1 free too, drawn below Linux's default ephemeral range
     * (32768 and up): a port there stays free until a replica binds it, where one drawn by {@code bind(0)}
     * may meanwhile become the source port of some connection (docs/operations.md, "Ports").
     */
    private static int[] freePorts() throws IOException {
        java.util.Random random = new java.util.Random();
        for (int attempt = 0; attempt < 50; attempt++) {
            int base = 20_000 + random.nextInt(12_000);
            java.util.List<ServerSocket> held = new java.util.ArrayList<>();
            try {
                for (int port = base; port < base + 4; port++) {
                    held.add(new ServerSocket(port)); // nodes 0 and 1, the metrics of node 0 and of node 1
                }
                return new int[] {base, base + 1, base + 2};
            } catch (IOException taken) {
                // one of the four was taken: draw again
            } finally {
                for (ServerSocket socket : held) {
                    socket.close();
                }
            }
        }
        throw new IOException("no four consecutive free ports between 20000 and 32002 in 50 attempts");
    }

    /** What the replica serving {@code /status} on {@code port} says, or null if it does not answer yet. */
    private static ReplicaStatus status(HttpClient http, int port) {
        try {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/status"))
                            .timeout(Duration.ofSeconds(2))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? ReplicaStatus.fromJson(response.body()) : null;
        } catch (IOException e) {
            return null; // not listening yet
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static boolean sameState(ReplicaStatus first, ReplicaStatus second) {
        return first.stableSeq() > 0
                && first.stableSeq() == second.stableSeq()
                && first.stableRoot().equals(second.stableRoot());
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static void await(String what, Supplier<Boolean> condition) throws InterruptedException {
        long deadline = System.nanoTime() + LIMIT.toNanos();
        while (!condition.get()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(50);
        }
    }
}
