package io.eve.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChildJvmsTest {
    private static boolean alive(long pid) {
        Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        return handle.isPresent() && handle.get().isAlive();
    }

    @Test
    void closingKillsEveryChildAndWaitsForIt(@TempDir Path dir) throws Exception {
        Process first;
        Process second;
        try (ChildJvms jvms = new ChildJvms(dir)) {
            first = jvms.start("first", List.of("-Xmx32m"), Sleeper.class.getName(), List.of());
            second = jvms.startPiped("second", List.of("-Xmx32m"), Sleeper.class.getName(), List.of());
            assertThat(jvms.processes()).containsExactly(first, second);
            assertThat(first.isAlive()).isTrue();
        }
        assertThat(first.isAlive()).isFalse();
        assertThat(second.isAlive()).isFalse();
    }

    @Test
    void anExceptionInTheBenchmarkStillKillsTheChildren(@TempDir Path dir) {
        Process[] started = new Process[1];
        assertThatThrownBy(() -> {
                    try (ChildJvms jvms = new ChildJvms(dir)) {
                        started[0] = jvms.start("child", List.of("-Xmx32m"), Sleeper.class.getName(), List.of());
                        throw new IllegalStateException("the benchmark failed");
                    }
                })
                .hasMessage("the benchmark failed");
        assertThat(started[0].isAlive()).isFalse();
    }

    @Test
    void nothingStartsOnceClosed(@TempDir Path dir) throws Exception {
        ChildJvms jvms = new ChildJvms(dir);
        jvms.close();
        assertThatThrownBy(() -> jvms.start("late", List.of(), Sleeper.class.getName(), List.of()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("late was not started");
    }

    /** A benchmark JVM that starts a child and then dies of an exception out of main, without closing. */
    @Test
    void aBenchmarkJvmThatDiesOfAnExceptionTakesItsChildrenWithIt(@TempDir Path dir) throws Exception {
        Process parent = new ProcessBuilder(
                        ChildJvms.command(List.of("-Xmx64m"), Parent.class.getName(), List.of(dir.toString(), "throw")))
                .redirectError(dir.resolve("parent.err").toFile())
                .start();
        long child = readChildPid(parent);
        assertThat(parent.waitFor()).isNotZero();
        assertThat(alive(child))
                .as("child %d after its parent's exception", child)
                .isFalse();
    }

    /** A benchmark JVM stopped by SIGTERM (as Ctrl-C's SIGINT, it runs the shutdown hooks). */
    @Test
    void aBenchmarkJvmStoppedBySignalTakesItsChildrenWithIt(@TempDir Path dir) throws Exception {
        Process parent = new ProcessBuilder(
                        ChildJvms.command(List.of("-Xmx64m"), Parent.class.getName(), List.of(dir.toString(), "wait")))
                .redirectError(dir.resolve("parent.err").toFile())
                .start();
        long child = readChildPid(parent);
        assertThat(alive(child)).isTrue();
        parent.destroy();
        parent.waitFor();
        assertThat(alive(child))
                .as("child %d after its parent's SIGTERM", child)
                .isFalse();
    }

    private static long readChildPid(Process parent) throws Exception {
        BufferedReader lines =
                new BufferedReader(new InputStreamReader(parent.getInputStream(), StandardCharsets.UTF_8));
        String line = lines.readLine();
        assertThat(line).as("the parent's first line").isNotNull().startsWith("child ");
        return Long.parseLong(line.substring("child ".length()));
    }

    /** Sleeps until killed. */
    public static final class Sleeper {
        /** Sleeps. */
        public static void main(String[] args) throws InterruptedException {
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    /** Starts a {@link Sleeper} through {@link ChildJvms}, prints its pid, then throws or waits. */
    public static final class Parent {
        /** {@code <log dir> throw|wait}. */
        public static void main(String[] args) throws Exception {
            ChildJvms jvms = new ChildJvms(Path.of(args[0]));
            Process child = jvms.start("sleeper", List.of("-Xmx32m"), Sleeper.class.getName(), List.of());
            System.out.println("child " + child.pid());
            System.out.flush();
            if (args[1].equals("throw")) {
                throw new IllegalStateException("the benchmark failed without closing its children");
            }
            Thread.sleep(Long.MAX_VALUE);
        }
    }
}
