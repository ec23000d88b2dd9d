package io.eve.samples.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.eve.Replica;
import io.eve.ReplicaStatus;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The figures of docs/benchmarks.md, "Restart from disk across processes": not a test (no assertion on speed;
 * the name keeps it out of the Surefire and Failsafe patterns). A durable primary-backup pair of the key-value
 * sample as two JVMs ({@code storage.sync=batch}), a store of {@code -Drestart.objects} objects of 1 KB (default
 * 200,000: about 205 MB), 16 closed-loop clients updating random objects for {@code -Drestart.load-seconds}
 * (default 60), then the backup is killed (SIGKILL), the load goes on for 5 s, and the backup restarts from its
 * storage directory; then it is killed again, its directory removed, 5 s more load, and it restarts empty (a
 * full transfer). Each restart is timed from the launch of its JVM until it reports itself a backup again
 * (caught up), with the bytes its transfer moved. {@code -Drestart.quick=true} shortens the load to 10 s and
 * the store to 50,000 objects for a local run. Run it by name:
 * {@code ./mvnw -B -q -o -pl samples -am verify -Dtest=RestartBenchmark -Dsurefire.failIfNoSpecifiedTests=false
 * -DskipITs}.
 */
class RestartBenchmark {
    private static final boolean QUICK = Boolean.getBoolean("restart.quick");
    private static final int OBJECTS = Integer.getInteger("restart.objects", QUICK ? 50_000 : 200_000);
    private static final int OBJECT_SIZE = 1024;
    private static final int LOAD_SECONDS = Integer.getInteger("restart.load-seconds", QUICK ? 10 : 60);
    private static final int CLIENTS = 16;
    private static final Duration DOWN = Duration.ofSeconds(5);
    private static final Duration LIMIT = Duration.ofMinutes(3);
    private static final Pattern RECOVERED =
            Pattern.compile("recovered batch (\\d+) .*checkpoint at (\\d+), (\\d+) logged batches replayed");

    /** One restart: how long until the replica served as backup again, and what its transfer moved. */
    private record Restart(
            long upMillis, long millis, long transferBytes, long transfers, long primarySeq, String recovered) {}

    @Test
    void restartFromDiskVersusFullTransfer() throws Exception {
        Path dir = Path.of("target", "restart-benchmark");
        deleteTree(dir);
        try (ReplicaProcesses cluster = ReplicaProcesses.start(
                dir,
                List.of(
                        "storage.dir=storage",
                        "storage.sync=batch",
                        // A full transfer of the whole store is one frame.
                        "transport.max-frame-bytes=" + Math.max(16 << 20, 2L * OBJECTS * (OBJECT_SIZE + 64))),
                List.of("--objects", Integer.toString(OBJECTS), "--object-size", Integer.toString(OBJECT_SIZE)),
                List.of("-Xmx" + Math.max(512, 8L * OBJECTS * OBJECT_SIZE / (1 << 20)) + "m"))) {
            ClosedLoopLoad load = ClosedLoopLoad.start(cluster.config(), 7_000, CLIENTS, OBJECTS);
            ClosedLoopLoad.Result result = null;
            try {
                Thread.sleep(LOAD_SECONDS * 1000L); // the length of the load, not a wait for a condition
                long loaded = load.acknowledged();
                int backup = 1 - cluster.primary(LIMIT);
                Restart fromDisk = restart(cluster, load, backup, false);
                Restart empty = restart(cluster, load, backup, true);
                result = load.stop();
                print(loaded, fromDisk, empty, result);
            } finally {
                if (result == null) {
                    load.stop();
                }
            }
            assertThat(result.wrong())
                    .as("wrong replies: %s", result.problems())
                    .isZero();
        }
    }

    /** Kills {@code node}, lets the load run {@link #DOWN}, restarts it (from its disk or empty) and times it. */
    private static Restart restart(ReplicaProcesses cluster, ClosedLoopLoad load, int node, boolean wipe)
            throws Exception {
        cluster.kill(node);
        if (wipe) {
            deleteTree(Path.of("target", "restart-benchmark", "storage", "node-" + node));
        }
        Thread.sleep(DOWN.toMillis()); // the load the restarted replica misses
        long before = load.acknowledged();
        ReplicaStatus primary = cluster.fullStatus(1 - node).orElseThrow();
        long start = System.nanoTime();
        cluster.restartJoining(node);
        // The status answers once the runtime is built: the JVM is up, the store made and the disk recovered.
        cluster.awaitFullStatus(node, s -> true, LIMIT);
        long upMillis = (System.nanoTime() - start) / 1_000_000;
        ReplicaStatus caughtUp = cluster.awaitFullStatus(node, s -> s.role() == Replica.Role.BACKUP, LIMIT);
        long millis = (System.nanoTime() - start) / 1_000_000;
        load.awaitAcknowledged(before + 100, LIMIT);
        return new Restart(
                upMillis,
                millis,
                caughtUp.transferBytes(),
                caughtUp.transfers(),
                primary.committedSeq(),
                wipe ? "nothing (empty directory)" : lastRecovered(cluster.log(node)));
    }

    private static String lastRecovered(Path log) throws IOException {
        String found = "nothing logged";
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            Matcher matcher = RECOVERED.matcher(line);
            if (matcher.find()) {
                found = "batch " + matcher.group(1) + " (checkpoint " + matcher.group(2) + ", " + matcher.group(3)
                        + " replayed)";
            }
        }
        return found;
    }

    private static void print(long loaded, Restart fromDisk, Restart empty, ClosedLoopLoad.Result result) {
        PrintStream out = System.out;
        out.printf(
                "state %,d objects of %d bytes (%,d bytes); %,d updates in %d s of load before the first kill;"
                        + " %,d updates in all, %d wrong%n",
                OBJECTS,
                OBJECT_SIZE,
                (long) OBJECTS * OBJECT_SIZE,
                loaded,
                LOAD_SECONDS,
                result.acknowledged(),
                result.wrong());
        line(out, "from disk", fromDisk);
        line(out, "empty    ", empty);
        out.printf(
                "from disk / empty: time %.2f, bytes %.3f%n",
                (double) fromDisk.millis() / empty.millis(), (double) fromDisk.transferBytes() / empty.transferBytes());
    }

    private static void line(PrintStream out, String name, Restart restart) {
        out.printf(
                "%s: recovered %s, primary at batch %,d, up after %,d ms, back as backup after %,d ms, %d transfer(s)"
                        + " of %,d bytes%n",
                name,
                restart.recovered(),
                restart.primarySeq(),
                restart.upMillis(),
                restart.millis(),
                restart.transfers(),
                restart.transferBytes());
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
}
