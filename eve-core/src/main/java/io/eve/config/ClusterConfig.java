package io.eve.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;

/**
 * The immutable, validated configuration of a cluster (DESIGN.md section 11), read from a properties
 * file shipped per profile (config/primary-backup.properties). Every problem fails at start with a
 * {@link ConfigException} naming the field and the value. Unknown keys are refused too, since a typo would
 * otherwise silently fall back to a default.
 *
 * @param profile {@code primary-backup} (the quorum profiles come with their own issue)
 * @param nodes the replicas, in order
 * @param executorThreads threads executing requests on each replica
 * @param inlineBatchLimit batches of at most this many requests run on the thread that received them
 *     when the stage is idle (no hand-off: lowest latency); 0 runs every batch on the stage thread
 * @param maxBatchSize requests per batch at most
 * @param maxBatchDelay how long a request may wait for its batch to fill
 * @param pipelineDepth batches executed ahead of verification
 * @param heartbeatInterval how often replicas say they are alive
 * @param failureTimeout silence after which a replica counts as failed
 * @param maxFrameBytes the largest message accepted from the network
 * @param metricsPort first port of the Prometheus endpoints (node i listens on metricsPort + i); 0: off
 */
public record ClusterConfig(
        Profile profile,
        List<NodeAddress> nodes,
        int executorThreads,
        int inlineBatchLimit,
        int maxBatchSize,
        Duration maxBatchDelay,
        int pipelineDepth,
        Duration heartbeatInterval,
        Duration failureTimeout,
        int maxFrameBytes,
        int metricsPort) {

    /** The verification protocol a cluster runs. */
    public enum Profile {
        PRIMARY_BACKUP("primary-backup");

        private final String key;

        Profile(String key) {
            this.key = key;
        }

        public String key() {
            return key;
        }

        static Profile parse(String value) {
            for (Profile profile : values()) {
                if (profile.key.equals(value)) {
                    return profile;
                }
            }
            throw new ConfigException("profile = '" + value + "' is not supported; expected one of: primary-backup");
        }
    }

    private static final Set<String> KEYS = Set.of(
            "profile",
            "nodes",
            "executor.threads",
            "execution.inline-batch-limit",
            "batch.max-size",
            "batch.max-delay-ms",
            "pipeline.depth",
            "heartbeat.interval-ms",
            "failure.timeout-ms",
            "transport.max-frame-bytes",
            "metrics.port");

    public ClusterConfig {
        nodes = List.copyOf(nodes);
        if (profile == Profile.PRIMARY_BACKUP && nodes.size() != 2) {
            throw new ConfigException(
                    "nodes lists " + nodes.size() + " replicas; the primary-backup profile needs exactly 2");
        }
        Set<Integer> ids = new HashSet<>();
        Set<String> endpoints = new HashSet<>();
        for (NodeAddress node : nodes) {
            if (!ids.add(node.id())) {
                throw new ConfigException("nodes: id " + node.id() + " appears twice");
            }
            if (!endpoints.add(node.host() + ":" + node.port())) {
                throw new ConfigException("nodes: " + node.host() + ":" + node.port() + " is used by two replicas");
            }
        }
        positive("executor.threads", executorThreads);
        positive("batch.max-size", maxBatchSize);
        if (inlineBatchLimit < 0) {
            throw new ConfigException("execution.inline-batch-limit = " + inlineBatchLimit + " must not be negative");
        }
        positive("pipeline.depth", pipelineDepth);
        if (heartbeatInterval.isNegative() || heartbeatInterval.isZero()) {
            throw new ConfigException("heartbeat.interval-ms = " + heartbeatInterval.toMillis() + " must be positive");
        }
        if (failureTimeout.compareTo(heartbeatInterval) <= 0) {
            throw new ConfigException("failure.timeout-ms = " + failureTimeout.toMillis()
                    + " must exceed heartbeat.interval-ms = " + heartbeatInterval.toMillis());
        }
        if (maxFrameBytes < 1024 || maxFrameBytes > (1 << 30)) {
            throw new ConfigException(
                    "transport.max-frame-bytes = " + maxFrameBytes + " is outside 1024 to 1073741824 (1 GiB)");
        }
        if (metricsPort < 0 || metricsPort > 65535 - nodes.size()) {
            throw new ConfigException("metrics.port = " + metricsPort + " is not a usable port (0 turns metrics off)");
        }
    }

    /** Reads and validates a configuration file. */
    public static ClusterConfig load(Path file) {
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            Properties properties = new Properties();
            properties.load(reader);
            return parse(properties);
        } catch (IOException e) {
            throw new ConfigException("cannot read the configuration " + file + ": " + e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new ConfigException(
                    "the configuration " + file + " is not a valid properties file: " + e.getMessage());
        }
    }

    /** Validates parsed properties. */
    public static ClusterConfig parse(Properties properties) {
        for (String key : properties.stringPropertyNames()) {
            if (!KEYS.contains(key)) {
                throw new ConfigException(
                        "unknown setting '" + key + "'; known settings: " + new java.util.TreeSet<>(KEYS));
            }
        }
        Profile profile = Profile.parse(required(properties, "profile").toLowerCase(Locale.ROOT));
        return new ClusterConfig(
                profile,
                parseNodes(required(properties, "nodes")),
                integer(properties, "executor.threads", Runtime.getRuntime().availableProcessors()),
                integer(properties, "execution.inline-batch-limit", 1),
                integer(properties, "batch.max-size", 64),
                Duration.ofMillis(integer(properties, "batch.max-delay-ms", 2)),
                integer(properties, "pipeline.depth", 4),
                Duration.ofMillis(integer(properties, "heartbeat.interval-ms", 100)),
                Duration.ofMillis(integer(properties, "failure.timeout-ms", 1000)),
                integer(properties, "transport.max-frame-bytes", 16 << 20),
                integer(properties, "metrics.port", 0));
    }

    /** The node with id {@code id}. */
    public NodeAddress node(int id) {
        for (NodeAddress node : nodes) {
            if (node.id() == id) {
                return node;
            }
        }
        throw new ConfigException("node id " + id + " is not in nodes " + nodes);
    }

    private static String required(Properties properties, String key) {
        String value = properties.getProperty(key);
        if (value == null || value.isBlank()) {
            throw new ConfigException("missing required setting '" + key + "'");
        }
        return value.trim();
    }

    private static int integer(Properties properties, String key, int fallback) {
        String value = properties.getProperty(key);
        if (value == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new ConfigException(key + " = '" + value + "' is not a whole number");
        }
    }

    private static void positive(String key, int value) {
        if (value < 1) {
            throw new ConfigException(key + " = " + value + " must be at least 1");
        }
    }

    /** Parses {@code id@host:port, id@host:port, ...}. */
    static List<NodeAddress> parseNodes(String value) {
        List<NodeAddress> nodes = new ArrayList<>();
        for (String part : value.split(",")) {
            String entry = part.trim();
            int at = entry.indexOf('@');
            int colon = entry.lastIndexOf(':');
            if (at <= 0 || colon <= at + 1 || colon == entry.length() - 1) {
                throw new ConfigException("nodes entry '" + entry + "' is not of the form id@host:port");
            }
            int id;
            int port;
            try {
                id = Integer.parseInt(entry.substring(0, at));
                port = Integer.parseInt(entry.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new ConfigException("nodes entry '" + entry + "' has a non-numeric id or port");
            }
            if (id < 0) {
                throw new ConfigException("nodes entry '" + entry + "': id " + id + " is negative");
            }
            if (port < 1 || port > 65535) {
                throw new ConfigException("nodes entry '" + entry + "': port " + port + " is outside 1..65535");
            }
            nodes.add(new NodeAddress(id, entry.substring(at + 1, colon), port));
        }
        return nodes;
    }
}
