package io.eve.samples.process;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What the nemesis tests share: a timestamped record of the faults injected (printed as they happen, kept for
 * the report), the faults every profile takes (SIGSTOP for a while, a cut or a delay of proxied links), and the
 * wait for the clients to make progress again after each. Used from the test thread.
 */
final class Nemesis {
    private final List<String> events = new ArrayList<>();
    private final long startedAt = System.nanoTime();
    private final Duration limit;

    /** @param limit how long the cluster may take to serve again after a fault */
    Nemesis(Duration limit) {
        this.limit = limit;
    }

    /** Records {@code event} with the seconds since the test started, and prints it. */
    void log(String event) {
        String line = String.format("%7.3f s  %s", (System.nanoTime() - startedAt) / 1e9, event);
        events.add(line);
        PrintStream out = System.out;
        out.println("nemesis " + line);
    }

    /** Every event so far, in order. */
    List<String> events() {
        return List.copyOf(events);
    }

    /** Stops replica {@code node} with SIGSTOP for {@code millis}, then waits for progress. */
    void pause(ReplicaProcesses cluster, RegisterWorkload workload, int node, long millis) throws Exception {
        log("SIGSTOP node " + node + " for " + millis + " ms");
        cluster.pause(node);
        try {
            Thread.sleep(millis); // the length of the fault, not a wait for a condition
        } finally {
            cluster.resume(node);
        }
        log("SIGCONT node " + node);
        awaitProgress(workload, 200);
    }

    /** Cuts {@code links} for {@code millis}, heals them, then waits for progress. */
    void cut(RegisterWorkload workload, String what, long millis, LinkProxy... links) throws Exception {
        log("cut " + what + " for " + millis + " ms");
        for (LinkProxy link : links) {
            link.cut();
        }
        Thread.sleep(millis); // the length of the fault
        for (LinkProxy link : links) {
            link.heal();
        }
        log("heal " + what);
        awaitProgress(workload, 200);
    }

    /** Delays every chunk through {@code links} by {@code delayMillis} for {@code millis}, then waits for progress. */
    void delay(RegisterWorkload workload, String what, long delayMillis, long millis, LinkProxy... links)
            throws Exception {
        log("delay " + what + " by " + delayMillis + " ms for " + millis + " ms");
        for (LinkProxy link : links) {
            link.delay(delayMillis);
        }
        Thread.sleep(millis); // the length of the fault
        for (LinkProxy link : links) {
            link.heal();
        }
        log("heal " + what);
        awaitProgress(workload, 200);
    }

    /** Waits until {@code count} more operations are acknowledged: the cluster serves again. */
    void awaitProgress(RegisterWorkload workload, long count) throws InterruptedException {
        long target = workload.acknowledged() + count;
        long deadline = System.nanoTime() + limit.toNanos();
        while (workload.acknowledged() < target) {
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError("no progress: " + workload.acknowledged() + " of " + target
                        + " operations acknowledged within " + limit);
            }
            Thread.sleep(20);
        }
    }

    /** {@code target/process-it/<name>}, emptied. */
    static Path workDir(String name) throws IOException {
        Path dir = Path.of("target", "process-it", name);
        Files.createDirectories(dir);
        try (var old = Files.walk(dir)) {
            // deepest first, so a folder is empty when its turn comes (key bundles are folders of files)
            for (Path file : (Iterable<Path>) old.sorted(java.util.Comparator.reverseOrder())::iterator) {
                if (!file.equals(dir)) {
                    Files.delete(file);
                }
            }
        }
        return dir;
    }
}
