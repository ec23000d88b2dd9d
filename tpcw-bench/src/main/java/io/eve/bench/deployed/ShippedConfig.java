package io.eve.bench.deployed;

import io.eve.samples.cli.ReplicaLaunch;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A shipped cluster configuration ({@code config/<profile>.properties}) moved onto free ports of 127.0.0.1:
 * every setting as shipped except {@code nodes} (the same ids, new ports) and {@code metrics.port}; a key
 * file it names is copied beside the copy. Stateless.
 */
public final class ShippedConfig {
    private ShippedConfig() {}

    /**
     * Writes {@code dir/cluster.properties} from {@code shippedDir/<profile>.properties} on free ports and
     * returns its path.
     *
     * @throws IllegalArgumentException if the shipped file is missing or names no nodes
     */
    public static Path write(Path shippedDir, String profile, Path dir) throws IOException {
        return write(shippedDir, profile, dir, lines -> lines);
    }

    /**
     * As {@link #write(Path, String, Path)}, and with {@code storage} not null every replica durable: {@code
     * storage.dir} that folder (absolute) with {@code storage.sync=batch}, in place of any storage setting
     * shipped; with null, every {@code storage.*} line of the shipped file is left out (in memory).
     */
    public static Path write(Path shippedDir, String profile, Path dir, Path storage) throws IOException {
        return write(shippedDir, profile, dir, lines -> withStorage(lines, storage));
    }

    /**
     * As {@link #write(Path, String, Path, Path)}, and with {@code tls} every connection under mutual TLS 1.3
     * ({@link #withTls}); without it the shipped {@code tls.*} settings stay as they are.
     */
    public static Path write(Path shippedDir, String profile, Path dir, Path storage, boolean tls) throws IOException {
        return write(shippedDir, profile, dir, storage, tls, null);
    }

    /**
     * As {@link #write(Path, String, Path, Path, boolean)}, and with {@code threads} not null {@code
     * executor.threads} set to it ({@link #withThreads}).
     */
    public static Path write(Path shippedDir, String profile, Path dir, Path storage, boolean tls, Integer threads)
            throws IOException {
        return write(shippedDir, profile, dir, lines -> {
            List<String> edited = withStorage(lines, storage);
            edited = tls ? withTls(edited) : edited;
            return threads == null ? edited : withThreads(edited, threads);
        });
    }

    private static Path write(Path shippedDir, String profile, Path dir, UnaryOperator<List<String>> edit)
            throws IOException {
        Path shipped = shippedDir.resolve(profile + ".properties");
        if (!Files.isRegularFile(shipped)) {
            throw new IllegalArgumentException("no shipped configuration " + shipped.toAbsolutePath()
                    + " (run from the repository's root or pass --config-dir)");
        }
        List<String> lines = Files.readAllLines(shipped, StandardCharsets.UTF_8);
        int nodes = nodeIds(lines).size();
        List<String> rewritten = edit.apply(rewrite(lines, ReplicaLaunch.freePorts(nodes)));
        Files.createDirectories(dir);
        for (String line : rewritten) {
            if (line.startsWith("auth.keys-file=")) {
                String keys = line.substring("auth.keys-file=".length()).trim();
                Files.copy(
                        shippedDir.resolve(keys), dir.resolve(keys), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
        Path config = dir.resolve("cluster.properties");
        Files.writeString(config, String.join("\n", rewritten) + "\n", StandardCharsets.UTF_8);
        return config;
    }

    /**
     * {@code lines} with node {@code i} of {@code nodes=} on {@code 127.0.0.1:ports[i]} and {@code
     * metrics.port=ports[n]} ({@code n} nodes); other lines as given.
     *
     * @throws IllegalArgumentException if there is no {@code nodes=} line or fewer ports than nodes + 1
     */
    static List<String> rewrite(List<String> lines, int[] ports) {
        List<Integer> ids = nodeIds(lines);
        if (ports.length < ids.size() + 1) {
            throw new IllegalArgumentException(
                    "need " + (ids.size() + 1) + " ports (nodes and metrics), got " + ports.length);
        }
        List<String> out = new ArrayList<>();
        boolean metrics = false;
        for (String line : lines) {
            String trimmed = line.trim();
            if (trimmed.startsWith("nodes=")) {
                List<String> nodes = new ArrayList<>();
                for (int i = 0; i < ids.size(); i++) {
                    nodes.add(ids.get(i) + "@127.0.0.1:" + ports[i]);
                }
                out.add("nodes=" + String.join(", ", nodes));
            } else if (trimmed.startsWith("metrics.port=")) {
                out.add("metrics.port=" + ports[ids.size()]);
                metrics = true;
            } else {
                out.add(line);
            }
        }
        if (!metrics) {
            out.add("metrics.port=" + ports[ids.size()]);
        }
        return out;
    }

    /**
     * {@code lines} without their {@code storage.*} settings, and with {@code storage} not null, {@code
     * storage.dir} (absolute, forward slashes) and {@code storage.sync=batch} added.
     */
    static List<String> withStorage(List<String> lines, Path storage) {
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            if (!line.trim().startsWith("storage.")) {
                out.add(line);
            }
        }
        if (storage != null) {
            out.add("storage.dir=" + storage.toAbsolutePath().toString().replace('\\', '/'));
            out.add("storage.sync=batch");
        }
        return out;
    }

    /**
     * {@code lines} without their {@code tls.*} settings, and with mutual TLS on: {@code tls.enabled=on}, {@code
     * tls.dir=tls} (beside the written file) and {@code tls.demo=on}, so that the first replica to start generates
     * localhost demo certificates there (the clients present its {@code client-0}). A shipped
     * {@code auth.keys-file} stays as it is.
     */
    static List<String> withTls(List<String> lines) {
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            if (!line.trim().startsWith("tls.")) {
                out.add(line);
            }
        }
        out.add("tls.enabled=on");
        out.add("tls.dir=tls");
        out.add("tls.demo=on");
        return out;
    }

    /** {@code lines} with {@code executor.threads} (shipped or not) set to {@code threads}. */
    static List<String> withThreads(List<String> lines, int threads) {
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            if (!line.trim().startsWith("executor.threads=")) {
                out.add(line);
            }
        }
        out.add("executor.threads=" + threads);
        return out;
    }

    /** The node ids of the {@code nodes=} line, in order. */
    static List<Integer> nodeIds(List<String> lines) {
        for (String line : lines) {
            String trimmed = line.trim();
            if (trimmed.startsWith("nodes=")) {
                List<Integer> ids = new ArrayList<>();
                for (String node : trimmed.substring("nodes=".length()).split(",")) {
                    String entry = node.trim();
                    int at = entry.indexOf('@');
                    if (at <= 0) {
                        throw new IllegalArgumentException("a node must be id@host:port, got '" + entry + "'");
                    }
                    ids.add(Integer.parseInt(entry.substring(0, at)));
                }
                return ids;
            }
        }
        throw new IllegalArgumentException("the configuration has no nodes= line");
    }
}
