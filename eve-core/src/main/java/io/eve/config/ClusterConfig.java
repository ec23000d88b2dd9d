package io.eve.config;

import io.eve.transport.SocketIo;
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
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.Set;

/**
 * The immutable, validated configuration of a cluster (DESIGN.md section 11), read from a properties
 * file shipped per profile (config/primary-backup.properties). Every problem fails at start with a
 * {@link ConfigException} naming the field and the value. Unknown keys are refused too, since a typo would
 * otherwise silently fall back to a default.
 *
 * @param profile {@code primary-backup}, or a quorum profile (Eve §6.1): {@code crash} (u = 1, r = 0) or
 *     {@code bft} (u = r = 1)
 * @param nodes the processes, in order
 * @param u quorum profiles: the faults of any kind the cluster stays live despite (0 for primary-backup)
 * @param r quorum profiles: the commission faults it stays safe despite (0 for primary-backup and crash)
 * @param executionReplicas quorum profiles: the ids hosting an execution replica, {@code u + max(u, r) + 1}
 *     of them; by default the first that many of {@code nodes} (empty for primary-backup)
 * @param verifiers quorum profiles: the ids hosting a verifier, {@code 2u + r + 1} of them; by default the
 *     first that many of {@code nodes} (empty for primary-backup)
 * @param authKeysFile bft: the file of the authenticators' shared keys, or null (optional until the
 *     authenticators land; then required)
 * @param pipelinedAgreement crash and bft: whether a verifier pre-prepares a batch on the token it pre-prepared
 *     for the batch before, up to {@code pipelineDepth} past its last commit (key {@code agreement.pipelined},
 *     off by default: experimental, docs/quorum.md "Pipelined agreement")
 * @param signedEvidence bft: whether verifiers sign their {@code Prepare} and {@code ViewChange} with their
 *     Ed25519 keys so that view-change evidence transfers (key {@code auth.signed-evidence}, on by default;
 *     docs/quorum.md, "Signed evidence"); false for the other profiles
 * @param executorThreads threads executing requests on each replica
 * @param inlineBatchLimit batches of at most this many requests run on the thread that received them
 *     when the stage is idle (no hand-off: lowest latency); 0 runs every batch on the stage thread
 * @param overlapBatches whether the next batch's requests that conflict with nothing of the batch in progress
 *     start while it ends (docs/state.md, "Overlapping batches"); on by default in every profile (decisions 0016
 *     and 0046)
 * @param maxBatchSize requests per batch at most
 * @param maxBatchDelay how long a request may wait for its batch to fill
 * @param pipelineDepth batches executed ahead of verification
 * @param heartbeatInterval how often replicas say they are alive
 * @param failureTimeout silence after which a replica counts as failed
 * @param maxFrameBytes the largest message accepted from the network
 * @param metricsPort first port of the Prometheus endpoints (node i listens on metricsPort + i); 0: off
 * @param transport how replicas reach each other: {@code netty} (TCP, the default), {@code rdma} or
 *     {@code auto} (verification traffic over one-sided RDMA writes, module eve-rdma; clients always TCP)
 * @param rdmaNodes for {@code rdma} and {@code auto}: each replica's RDMA NIC address and control port
 * @param extraProtection quorum profiles: the extra protection mode of Eve §6.3 (on by default for crash,
 *     refused for r >= 1; off for primary-backup, whose own protocol compares both tokens anyway)
 * @param bounds quorum profiles: the windows beyond which messages from peers are refused ({@link Bounds})
 * @param witness primary-backup: the node that runs the witness (key {@code witness}), a third process that
 *     holds no application state and grants the right to commit alone (docs/primary-backup.md, "Fencing with
 *     a witness"); empty: no witness, and safety rests on timing
 * @param storage where execution replicas keep their state across restarts, or {@link Storage#NONE} (nothing on
 *     disk: a restarted replica takes the whole state by transfer)
 * @param tls mutual TLS on every TCP connection and where the cluster's certificates are ({@code tls.*},
 *     {@link TlsSettings}); off by default
 * @param app the application's own settings: every key of the file that starts with {@code app.}, without
 *     that prefix (the framework reads none of them; the application reads them in its constructor)
 */
public record ClusterConfig(
        Profile profile,
        List<NodeAddress> nodes,
        int executorThreads,
        int inlineBatchLimit,
        boolean overlapBatches,
        int maxBatchSize,
        Duration maxBatchDelay,
        int pipelineDepth,
        Duration heartbeatInterval,
        Duration failureTimeout,
        int maxFrameBytes,
        int metricsPort,
        int u,
        int r,
        List<Integer> executionReplicas,
        List<Integer> verifiers,
        String authKeysFile,
        boolean signedEvidence,
        boolean pipelinedAgreement,
        String transport,
        SocketIo socketIo,
        List<NodeAddress> rdmaNodes,
        ExtraProtection extraProtection,
        Bounds bounds,
        OptionalInt witness,
        Storage storage,
        TlsSettings tls,
        Map<String, String> app) {

    /** The key of {@link #socketIo()}: {@code auto}, {@code epoll} or {@code nio} (decision 0045). */
    public static final String SOCKET_IO = "transport.io";

    /** The prefix of the keys left to the application (see {@link #app()}). */
    public static final String APP_PREFIX = "app.";

    /**
     * The extra protection mode (Eve §6.3, docs/quorum.md): after {@code afterBatches} consecutive batches whose
     * tokens all matched, verifiers wait up to {@code waitTime} for every execution replica's token and order a
     * rollback when one differs; no batch counts towards the mode until {@code warmUp} after the verifier saw
     * the first token (JVMs still compiling send late tokens). Only for {@code r = 0}.
     */
    public record ExtraProtection(boolean enabled, int afterBatches, Duration waitTime, Duration warmUp) {
        static final String KEY = "quorum.extra-protection";
        static final String AFTER_BATCHES = "quorum.extra-protection.after-batches";
        static final String WAIT_MS = "quorum.extra-protection.wait-ms";
        static final String WARM_UP_MS = "quorum.extra-protection.warm-up-ms";
        /** The warm-up of a deployed verifier: its JVM compiles for tens of seconds (docs/benchmarks.md). */
        static final int DEFAULT_WARM_UP_MS = 10_000;

        public static final ExtraProtection OFF =
                new ExtraProtection(false, 32, Duration.ofMillis(10), Duration.ofMillis(DEFAULT_WARM_UP_MS));

        public ExtraProtection {
            positive(AFTER_BATCHES, afterBatches);
            if (waitTime.isNegative() || waitTime.isZero()) {
                throw new ConfigException(WAIT_MS + " = " + waitTime.toMillis() + " must be positive");
            }
            if (warmUp.isNegative()) {
                throw new ConfigException(WARM_UP_MS + " = " + warmUp.toMillis() + " must be 0 or more");
            }
        }

        static ExtraProtection parse(Profile profile, int r, Properties properties) {
            boolean anySet = false;
            for (String key : List.of(KEY, AFTER_BATCHES, WAIT_MS, WARM_UP_MS)) {
                anySet |= properties.getProperty(key) != null;
            }
            if (!profile.quorum()) {
                if (anySet) {
                    throw new ConfigException(
                            "quorum.extra-protection* applies to the crash profile only, not to " + profile.key());
                }
                return OFF;
            }
            boolean enabled = onOff(properties, KEY, r == 0);
            if (enabled && r >= 1) {
                throw new ConfigException(KEY + " = on needs r = 0 (the crash profile), got r = " + r
                        + ": with commission faults a mismatch is not a concurrency bug to roll back");
            }
            return new ExtraProtection(
                    enabled,
                    integer(properties, AFTER_BATCHES, 32),
                    Duration.ofMillis(integer(properties, WAIT_MS, 10)),
                    Duration.ofMillis(integer(properties, WARM_UP_MS, DEFAULT_WARM_UP_MS)));
        }
    }

    /**
     * Quorum profiles: how much a verifier or an execution replica keeps for messages ahead of where it is, so
     * that a hostile peer cannot grow its memory without bound (docs/quorum.md, "Bounded memory"). Messages
     * beyond a window are dropped and counted ({@code eve.quorum.refused}).
     *
     * @param batches a message about a batch more than this many batches past the last one committed is
     *     dropped; each execution replica keeps at most this many agreement votes per verifier
     * @param views a view change for a view more than this many views past the current one is dropped
     * @param heldMessages messages a durable verifier holds until its memory is on disk; past this the newest
     *     is dropped (the protocol retransmits what it needs)
     */
    public record Bounds(int batches, int views, int heldMessages) {
        static final String BATCHES = "quorum.window.batches";
        static final String VIEWS = "quorum.window.views";
        static final String HELD = "quorum.held-messages";

        /** The defaults: 1024 batches, 1024 views, 65536 held messages. */
        public static final Bounds DEFAULT = new Bounds(1024, 1024, 65536);

        public Bounds {
            positive(BATCHES, batches);
            positive(VIEWS, views);
            positive(HELD, heldMessages);
        }

        static Bounds parse(Profile profile, Properties properties) {
            if (!profile.quorum()) {
                for (String key : List.of(BATCHES, VIEWS, HELD)) {
                    if (properties.getProperty(key) != null) {
                        throw new ConfigException(
                                key + " applies to the crash and bft profiles only, not to " + profile.key());
                    }
                }
                return DEFAULT;
            }
            return new Bounds(
                    integer(properties, BATCHES, DEFAULT.batches()),
                    integer(properties, VIEWS, DEFAULT.views()),
                    integer(properties, HELD, DEFAULT.heldMessages()));
        }
    }

    /**
     * Durable storage of execution replicas (docs/operations.md, "Storage"): node {@code i} keeps its log of
     * committed batches and its checkpoints in {@code dir/node-i/}.
     *
     * @param dir the directory holding every node's directory, or null: nothing on disk
     * @param sync when appended batches reach the disk: {@code batch} (before their replies go), {@code interval}
     *     (every {@code syncInterval}) or {@code none} (when the operating system writes them)
     * @param syncInterval for {@code interval}: the longest time between two syncs
     * @param checkpointEvery committed batches between two checkpoints of the state
     */
    public record Storage(Path dir, Sync sync, Duration syncInterval, int checkpointEvery) {
        static final String DIR = "storage.dir";
        static final String SYNC = "storage.sync";
        static final String SYNC_INTERVAL_MS = "storage.sync-interval-ms";
        static final String CHECKPOINT_EVERY = "storage.checkpoint-every";

        /** No storage: every key's default, and no directory. */
        public static final Storage NONE = new Storage(null, Sync.BATCH, Duration.ofMillis(10), 1000);

        public Storage {
            Objects.requireNonNull(sync, "sync");
            if (syncInterval.isNegative() || syncInterval.isZero()) {
                throw new ConfigException(SYNC_INTERVAL_MS + " = " + syncInterval.toMillis() + " must be positive");
            }
            positive(CHECKPOINT_EVERY, checkpointEvery);
        }

        /** Whether replicas keep anything on disk. */
        public boolean enabled() {
            return dir != null;
        }

        /** The directory of node {@code node}: {@code dir/node-<node>}. */
        public Path nodeDir(int node) {
            if (dir == null) {
                throw new IllegalStateException("no storage.dir is configured");
            }
            return dir.resolve("node-" + node);
        }

        static Storage parse(Properties properties) {
            String dirValue = properties.getProperty(DIR);
            Path dir = null;
            if (dirValue != null) {
                if (dirValue.isBlank()) {
                    throw new ConfigException(DIR + " is empty; give a directory or leave the key out (no storage)");
                }
                try {
                    dir = Path.of(dirValue.trim());
                } catch (java.nio.file.InvalidPathException e) {
                    throw new ConfigException(DIR + " = '" + dirValue.trim() + "' is not a path: " + e.getMessage());
                }
            }
            Sync sync = Sync.parse(properties.getProperty(SYNC, "batch"));
            Duration interval = Duration.ofMillis(integer(properties, SYNC_INTERVAL_MS, 10));
            int every = integer(properties, CHECKPOINT_EVERY, NONE.checkpointEvery());
            if (dir == null) {
                for (String key : List.of(SYNC, SYNC_INTERVAL_MS, CHECKPOINT_EVERY)) {
                    if (properties.getProperty(key) != null) {
                        throw new ConfigException(key + " is set but " + DIR + " is not: nothing would be stored");
                    }
                }
            }
            if (sync != Sync.INTERVAL && properties.getProperty(SYNC_INTERVAL_MS) != null) {
                throw new ConfigException(
                        SYNC_INTERVAL_MS + " applies to " + SYNC + " = interval only, not to " + sync.key());
            }
            return new Storage(dir, sync, interval, every);
        }

        /**
         * When appended batches are forced to the disk, and what a crash of the machine (not just the process)
         * may lose: {@code BATCH} nothing acknowledged; {@code INTERVAL} up to one interval of acknowledged
         * batches; {@code NONE} whatever the operating system had not written yet.
         */
        public enum Sync {
            BATCH("batch"),
            INTERVAL("interval"),
            NONE("none");

            private final String key;

            Sync(String key) {
                this.key = key;
            }

            public String key() {
                return key;
            }

            static Sync parse(String value) {
                String normalized = value.trim().toLowerCase(Locale.ROOT);
                for (Sync sync : values()) {
                    if (sync.key.equals(normalized)) {
                        return sync;
                    }
                }
                throw new ConfigException(SYNC + " = '" + value.trim() + "' is not one of batch, interval, none");
            }
        }
    }

    /** The verification protocol a cluster runs. */
    public enum Profile {
        PRIMARY_BACKUP("primary-backup"),
        CRASH("crash"),
        BFT("bft");

        private final String key;

        Profile(String key) {
            this.key = key;
        }

        public String key() {
            return key;
        }

        /** Whether this is a quorum profile (execution replicas and verifiers) rather than primary-backup. */
        public boolean quorum() {
            return this != PRIMARY_BACKUP;
        }

        static Profile parse(String value) {
            for (Profile profile : values()) {
                if (profile.key.equals(value)) {
                    return profile;
                }
            }
            throw new ConfigException(
                    "profile = '" + value + "' is not supported; expected one of: primary-backup, crash, bft");
        }
    }

    private static final Set<String> KEYS = Set.of(
            "profile",
            "nodes",
            "executor.threads",
            "execution.inline-batch-limit",
            "execution.overlap",
            "batch.max-size",
            "batch.max-delay-ms",
            "pipeline.depth",
            "heartbeat.interval-ms",
            "failure.timeout-ms",
            "transport.max-frame-bytes",
            "metrics.port",
            "quorum.u",
            "quorum.r",
            "quorum.execution-replicas",
            "quorum.verifiers",
            "auth.keys-file",
            QuorumRoles.SIGNED_EVIDENCE,
            "agreement.pipelined",
            "transport",
            SOCKET_IO,
            "rdma.nodes",
            "quorum.extra-protection",
            "quorum.extra-protection.after-batches",
            "quorum.extra-protection.wait-ms",
            "quorum.extra-protection.warm-up-ms",
            Bounds.BATCHES,
            Bounds.VIEWS,
            Bounds.HELD,
            "witness",
            Storage.DIR,
            Storage.SYNC,
            Storage.SYNC_INTERVAL_MS,
            Storage.CHECKPOINT_EVERY,
            TlsSettings.ENABLED,
            TlsSettings.DIR,
            TlsSettings.CLIENT,
            TlsSettings.DEMO);

    public ClusterConfig {
        nodes = List.copyOf(nodes);
        Objects.requireNonNull(storage, "storage");
        Objects.requireNonNull(tls, "tls");
        Objects.requireNonNull(bounds, "bounds");
        app = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(app));
        rdmaNodes = List.copyOf(rdmaNodes);
        Objects.requireNonNull(socketIo, "socketIo");
        if (!List.of("netty", "rdma", "auto").contains(transport)) {
            throw new ConfigException("transport = '" + transport + "' is not one of netty, rdma, auto");
        }
        if (!transport.equals("netty")) {
            java.util.Set<Integer> replicaIds = new java.util.TreeSet<>();
            nodes.forEach(node -> replicaIds.add(node.id()));
            java.util.Set<Integer> rdmaIds = new java.util.TreeSet<>();
            rdmaNodes.forEach(node -> rdmaIds.add(node.id()));
            if (!rdmaIds.equals(replicaIds)) {
                throw new ConfigException("transport = " + transport + " needs rdma.nodes with an address for every"
                        + " node " + replicaIds + " (its RDMA NIC and control port), got " + rdmaIds);
            }
        } else if (!rdmaNodes.isEmpty()) {
            throw new ConfigException("rdma.nodes is set but transport = netty; set transport = rdma or auto");
        }
        checkWitness(profile, nodes, witness);
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
        executionReplicas = List.copyOf(executionReplicas);
        verifiers = List.copyOf(verifiers);
        if (extraProtection.enabled() && (!profile.quorum() || r >= 1)) {
            throw new ConfigException("quorum.extra-protection = on needs the crash profile (r = 0), got "
                    + profile.key() + " with r = " + r);
        }
        if (profile.quorum() && bounds.batches() <= pipelineDepth) {
            throw new ConfigException(Bounds.BATCHES + " = " + bounds.batches() + " must exceed pipeline.depth = "
                    + pipelineDepth + ": the batches a correct primary runs ahead would be refused");
        }
        if (profile.quorum()) {
            QuorumRoles.validate(profile, ids, u, r, executionReplicas, verifiers);
        } else if (!executionReplicas.isEmpty() || !verifiers.isEmpty() || authKeysFile != null) {
            throw new ConfigException("quorum.* and auth.keys-file apply to the crash and bft profiles only");
        }
        if (signedEvidence && profile != Profile.BFT) {
            throw new ConfigException(
                    QuorumRoles.SIGNED_EVIDENCE + " applies to the bft profile only, not to " + profile.key());
        }
    }

    private static void checkWitness(Profile profile, List<NodeAddress> nodes, OptionalInt witness) {
        if (witness.isPresent()) {
            if (profile != Profile.PRIMARY_BACKUP) {
                throw new ConfigException("witness = " + witness.getAsInt()
                        + " applies to the primary-backup profile only, not to " + profile.key());
            }
            if (nodes.stream().noneMatch(node -> node.id() == witness.getAsInt())) {
                throw new ConfigException("witness = " + witness.getAsInt() + " is not one of the nodes " + nodes);
            }
            if (nodes.size() != 3) {
                throw new ConfigException("nodes lists " + nodes.size() + " processes; the primary-backup profile with"
                        + " a witness needs exactly 3 (two replicas and the witness " + witness.getAsInt() + ")");
            }
        } else if (profile == Profile.PRIMARY_BACKUP && nodes.size() != 2) {
            throw new ConfigException("nodes lists " + nodes.size() + " replicas; the primary-backup profile needs"
                    + " exactly 2 (or 3 with one of them named by witness = <id>)");
        }
    }

    /** The folder of {@code storage.dir}, or empty when nothing is kept on disk. */
    public Optional<Path> storageDir() {
        return Optional.ofNullable(storage.dir());
    }

    /** Whether node {@code id} is the primary-backup witness. */
    public boolean isWitness(int id) {
        return witness.isPresent() && witness.getAsInt() == id;
    }

    /** The nodes that host replicas (every node but the witness). */
    public List<NodeAddress> replicaNodes() {
        return nodes.stream().filter(node -> !isWitness(node.id())).toList();
    }

    /** Matching replies a client needs before it accepts one: {@code r + 1} (1 for primary-backup and crash). */
    public int matchingReplies() {
        return r + 1;
    }

    /** The nodes clients send requests to: the execution replicas, or both replicas of primary-backup. */
    public List<Integer> clientTargets() {
        return profile.quorum()
                ? executionReplicas
                : replicaNodes().stream().map(NodeAddress::id).toList();
    }

    /** Reads and validates a configuration file. */
    public static ClusterConfig load(Path file) {
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            Properties properties = new Properties();
            properties.load(reader);
            Path folder = file.toAbsolutePath().getParent();
            return parse(properties, folder == null ? Path.of("") : folder);
        } catch (IOException e) {
            throw new ConfigException("cannot read the configuration " + file + ": " + e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new ConfigException(
                    "the configuration " + file + " is not a valid properties file: " + e.getMessage());
        }
    }

    /** Validates parsed properties; a relative {@code tls.dir} stays relative to the working directory. */
    public static ClusterConfig parse(Properties properties) {
        return parse(properties, null);
    }

    /**
     * Validates parsed properties, resolving a relative {@code tls.dir} against {@code base} (the configuration
     * file's folder), or leaving it relative when {@code base} is null.
     */
    public static ClusterConfig parse(Properties properties, Path base) {
        Map<String, String> app = new java.util.TreeMap<>();
        for (String key : properties.stringPropertyNames()) {
            if (key.startsWith(APP_PREFIX) && key.length() > APP_PREFIX.length()) {
                app.put(
                        key.substring(APP_PREFIX.length()),
                        properties.getProperty(key).trim());
            } else if (!KEYS.contains(key)) {
                throw new ConfigException("unknown setting '" + key + "'; known settings: "
                        + new java.util.TreeSet<>(KEYS) + ", and the application's own under '" + APP_PREFIX + "'");
            }
        }
        Profile profile = Profile.parse(required(properties, "profile").toLowerCase(Locale.ROOT));
        List<NodeAddress> nodes = parseNodes(required(properties, "nodes"));
        QuorumRoles roles = QuorumRoles.parse(profile, properties, nodes);
        return new ClusterConfig(
                profile,
                nodes,
                integer(properties, "executor.threads", Runtime.getRuntime().availableProcessors()),
                integer(properties, "execution.inline-batch-limit", 1),
                overlap(properties),
                integer(properties, "batch.max-size", 64),
                Duration.ofMillis(integer(properties, "batch.max-delay-ms", 2)),
                integer(properties, "pipeline.depth", 4),
                Duration.ofMillis(integer(properties, "heartbeat.interval-ms", 100)),
                Duration.ofMillis(integer(properties, "failure.timeout-ms", 1000)),
                integer(properties, "transport.max-frame-bytes", 16 << 20),
                integer(properties, "metrics.port", 0),
                roles.u(),
                roles.r(),
                roles.executionReplicas(),
                roles.verifiers(),
                roles.authKeysFile(),
                roles.signedEvidence(),
                pipelinedAgreement(profile, properties),
                properties.getProperty("transport", "netty").trim().toLowerCase(Locale.ROOT),
                socketIo(properties),
                properties.getProperty("rdma.nodes") == null
                        ? List.of()
                        : parseNodes("rdma.nodes", properties.getProperty("rdma.nodes")),
                ExtraProtection.parse(profile, roles.r(), properties),
                Bounds.parse(profile, properties),
                witness(properties),
                Storage.parse(properties),
                TlsSettings.parse(properties, base),
                app);
    }

    /**
     * The application setting {@code key} (given in the file as {@code app.key}), or {@code fallback}.
     */
    public String app(String key, String fallback) {
        return app.getOrDefault(key, fallback);
    }

    /** The application setting {@code key} as a whole number, or {@code fallback}; a bad number names the key. */
    public long app(String key, long fallback) {
        String value = app.get(key);
        if (value == null) {
            return fallback;
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new ConfigException(APP_PREFIX + key + " = '" + value + "' is not a whole number");
        }
    }

    /** {@code witness}: the id of the one node that runs primary-backup's witness, or absent. */
    private static OptionalInt witness(Properties properties) {
        String value = properties.getProperty("witness");
        if (value == null) {
            return OptionalInt.empty();
        }
        try {
            return OptionalInt.of(Integer.parseInt(value.trim()));
        } catch (NumberFormatException e) {
            throw new ConfigException("witness = '" + value.trim() + "' is not one node id; name exactly one of the"
                    + " nodes (a cluster has at most one witness)");
        }
    }

    /** {@code transport.io}: the TCP transport's socket layer, {@code auto} by default (decision 0045). */
    private static SocketIo socketIo(Properties properties) {
        String value = properties.getProperty(SOCKET_IO);
        if (value == null) {
            return SocketIo.AUTO;
        }
        try {
            return SocketIo.parse(value);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(SOCKET_IO + " = " + e.getMessage());
        }
    }

    private static boolean pipelinedAgreement(Profile profile, Properties properties) {
        boolean on = onOff(properties, "agreement.pipelined", false);
        if (on && !profile.quorum()) {
            throw new ConfigException(
                    "agreement.pipelined = on applies to the crash and bft profiles only, not to " + profile.key());
        }
        return on;
    }

    /**
     * {@code execution.overlap}: on or off, on by default in every profile (docs/state.md, "Overlapping batches";
     * decision 0046 for the quorum profiles).
     */
    private static boolean overlap(Properties properties) {
        return onOff(properties, "execution.overlap", true);
    }

    /** A switch: {@code on} or {@code off} in any case, {@code fallback} when the key is absent. */
    static boolean onOff(Properties properties, String key, boolean fallback) {
        String value = properties.getProperty(key);
        if (value == null) {
            return fallback;
        }
        String normalized = value.trim().toLowerCase(Locale.ROOT);
        if (!normalized.equals("on") && !normalized.equals("off")) {
            throw new ConfigException(key + " = '" + value.trim() + "' is neither on nor off");
        }
        return normalized.equals("on");
    }

    /** The RDMA address (NIC and control port) of node {@code id}; only for transport rdma or auto. */
    public NodeAddress rdmaNode(int id) {
        for (NodeAddress node : rdmaNodes) {
            if (node.id() == id) {
                return node;
            }
        }
        throw new ConfigException("node id " + id + " is not in rdma.nodes " + rdmaNodes);
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

    static int integer(Properties properties, String key, int fallback) {
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
        return parseNodes("nodes", value);
    }

    /** Parses the list of {@code id@host:port} entries of setting {@code key}, naming it in errors. */
    static List<NodeAddress> parseNodes(String key, String value) {
        List<NodeAddress> nodes = new ArrayList<>();
        for (String part : value.split(",")) {
            String entry = part.trim();
            int at = entry.indexOf('@');
            int colon = entry.lastIndexOf(':');
            if (at <= 0 || colon <= at + 1 || colon == entry.length() - 1) {
                throw new ConfigException(key + " entry '" + entry + "' is not of the form id@host:port");
            }
            int id;
            int port;
            try {
                id = Integer.parseInt(entry.substring(0, at));
                port = Integer.parseInt(entry.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new ConfigException(key + " entry '" + entry + "' has a non-numeric id or port");
            }
            if (id < 0) {
                throw new ConfigException(key + " entry '" + entry + "': id " + id + " is negative");
            }
            if (port < 1 || port > 65535) {
                throw new ConfigException(key + " entry '" + entry + "': port " + port + " is outside 1..65535");
            }
            nodes.add(new NodeAddress(id, entry.substring(at + 1, colon), port));
        }
        return nodes;
    }
}
