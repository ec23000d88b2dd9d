package io.eve.bench.harness;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The JVMs a deployed benchmark starts: each with this JVM's {@code java.home} and class path, its output in
 * {@code <name>.log} under the log directory (or piped back, for the load generator). Closing kills every
 * one still alive and waits for it to exit; a shutdown hook does the same when this JVM ends another way
 * (an exception out of {@code main}, Ctrl-C, SIGTERM), so no child outlives the benchmark. A SIGKILL of
 * this JVM cannot be caught: the children then run on until killed. Used from one thread; the hook may
 * run on another.
 */
public final class ChildJvms implements AutoCloseable {
    private final Path logDir;
    private final List<Process> started = new ArrayList<>();
    private final Thread killOnExit = new Thread(this::killAll, "kill-benchmark-children");
    private boolean closed;

    /** A launcher writing the children's logs into {@code logDir} (created if missing). */
    public ChildJvms(Path logDir) throws IOException {
        this.logDir = Files.createDirectories(logDir);
        Runtime.getRuntime().addShutdownHook(killOnExit);
    }

    /**
     * Starts {@code mainClass} with {@code jvmOptions} and {@code args}, its output (stdout and stderr) in
     * {@code <name>.log}.
     */
    public Process start(String name, List<String> jvmOptions, String mainClass, List<String> args) throws IOException {
        return launch(command(jvmOptions, mainClass, args), name, false);
    }

    /**
     * Starts {@code mainClass} with its stdout piped back ({@link Process#getInputStream()}) and its stderr
     * in {@code <name>.log}.
     */
    public Process startPiped(String name, List<String> jvmOptions, String mainClass, List<String> args)
            throws IOException {
        return launch(command(jvmOptions, mainClass, args), name, true);
    }

    private synchronized Process launch(List<String> command, String name, boolean piped) throws IOException {
        if (closed) {
            throw new IllegalStateException("the launcher is closed: " + name + " was not started");
        }
        ProcessBuilder builder = new ProcessBuilder(command);
        Path log = logDir.resolve(name + ".log");
        if (piped) {
            builder.redirectError(log.toFile());
        } else {
            builder.redirectErrorStream(true).redirectOutput(log.toFile());
        }
        Process process = builder.start();
        started.add(process);
        return process;
    }

    static List<String> command(List<String> jvmOptions, String mainClass, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass);
        command.addAll(args);
        return command;
    }

    /**
     * {@code count} ports of 127.0.0.1 that were free a moment ago, the last one with its successor free as well
     * (a metrics port {@code m} and node 1's {@code m + 1}).
     */
    public static int[] freePortsWithSuccessor(int count) throws IOException {
        for (int attempt = 0; attempt < 20; attempt++) {
            List<ServerSocket> sockets = new ArrayList<>();
            try {
                for (int i = 0; i < count; i++) {
                    sockets.add(new ServerSocket(0));
                }
                sockets.add(new ServerSocket(sockets.get(count - 1).getLocalPort() + 1));
                return sockets.stream()
                        .limit(count)
                        .mapToInt(ServerSocket::getLocalPort)
                        .toArray();
            } catch (IOException taken) {
                // The successor was in use: draw again.
            } finally {
                for (ServerSocket socket : sockets) {
                    socket.close();
                }
            }
        }
        throw new IOException("no free port p with p + 1 free in 20 attempts");
    }

    /** The directory holding the children's logs. */
    public Path logDir() {
        return logDir;
    }

    /** The processes started so far (alive or not), in order. */
    public synchronized List<Process> processes() {
        return List.copyOf(started);
    }

    /** Kills every child still alive and waits for each to exit; idempotent. */
    @Override
    public void close() {
        killAll();
        try {
            Runtime.getRuntime().removeShutdownHook(killOnExit);
        } catch (IllegalStateException shuttingDown) {
            // The hook is running or has run: it does the same work.
        }
    }

    private void killAll() {
        List<Process> toKill;
        synchronized (this) {
            closed = true;
            toKill = List.copyOf(started);
        }
        for (Process process : toKill) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
        boolean interrupted = false;
        for (Process process : toKill) {
            while (true) {
                try {
                    // Bounded so that a child the kernel cannot reap does not hang the benchmark's exit.
                    process.waitFor(10, TimeUnit.SECONDS);
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
