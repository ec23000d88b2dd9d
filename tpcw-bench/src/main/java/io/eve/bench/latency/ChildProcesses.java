package io.eve.bench.latency;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * JVMs started by the benchmark with its own {@code java.home} and class path (the benchmark jar holds
 * the replica's and the echo server's main classes). Output goes to one log file per process. Closing
 * kills them all, and so does a shutdown hook if the benchmark exits another way.
 *
 * <p>Used from the benchmark's main thread.
 */
final class ChildProcesses implements AutoCloseable {
    private final Path logDir;
    private final List<Process> started = new ArrayList<>();
    private final Thread killOnExit = new Thread(this::killAll, "kill-child-processes");

    ChildProcesses(Path logDir) throws IOException {
        this.logDir = Files.createDirectories(logDir);
        Runtime.getRuntime().addShutdownHook(killOnExit);
    }

    /** Starts {@code mainClass} with {@code args}; its output goes to {@code <name>.log}. */
    Process start(String name, String mainClass, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                mainClass));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(logDir.resolve(name + ".log").toFile())
                .start();
        started.add(process);
        return process;
    }

    Path logDir() {
        return logDir;
    }

    /** {@code count} ports that were free a moment ago, the last one with its successor free as well. */
    static int[] freePorts(int count) throws IOException {
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

    @Override
    public void close() {
        killAll();
        try {
            Runtime.getRuntime().removeShutdownHook(killOnExit);
        } catch (IllegalStateException shuttingDown) {
            // Already running: it does the same work.
        }
    }

    private void killAll() {
        started.forEach(Process::destroyForcibly);
    }
}
