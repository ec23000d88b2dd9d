package io.eve.server;

import io.eve.Application;
import io.eve.Replica;
import io.eve.config.ClusterConfig;
import io.eve.config.ConfigException;
import io.eve.config.NodeAddress;
import io.eve.mixer.Mixer;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.storage.Storage;
import io.eve.storage.StorageConfig;
import io.eve.transport.Transport;
import io.eve.transport.netty.NettyTransport;
import io.eve.transport.netty.tls.TlsIdentity;
import io.eve.verify.auth.AuthenticatingTransport;
import io.eve.verify.auth.Envelopes;
import io.eve.verify.auth.SignedEvidence;
import io.eve.verify.primarybackup.PrimaryBackupConfig;
import io.eve.verify.primarybackup.PrimaryBackupRoles;
import io.eve.verify.primarybackup.WitnessRoles;
import io.eve.verify.quorum.Evidence;
import io.eve.verify.quorum.QuorumConfig;
import io.eve.verify.quorum.QuorumRoles;
import io.eve.verify.quorum.Refusals;
import io.eve.verify.quorum.VerifierStore;
import io.eve.verify.runtime.HostedRoles;
import io.eve.verify.runtime.ReplicaRuntime;
import io.eve.verify.runtime.ReplicaRuntimeBuilder;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Embeds a replica of an application in a program, in any profile, from its cluster configuration:
 *
 * <pre>{@code
 * Replica replica = EveReplica.builder()
 *         .config(Path.of("cluster.properties"))
 *         .node(0)
 *         .application(new Bank())
 *         .start();
 * }</pre>
 *
 * Everything the profile needs comes from the configuration: the node's protocol roles (primary-backup; or
 * execution replica and verifier for crash and bft), the transport (Netty, or RDMA beside it), the bft
 * authenticators (the key file, relative to the configuration file's folder), extra protection, batching,
 * timeouts, threads, and the {@code /metrics} and {@code /status} endpoint on {@code metrics.port + node}.
 * The mixer defaults to Eve's first-fit mixer over the application's conflict keys.
 */
public final class EveReplica {
    private static final Logger LOG = LoggerFactory.getLogger(EveReplica.class);

    private EveReplica() {}

    public static Builder builder() {
        return new Builder();
    }

    /** What a replica is made of. Not thread-safe; {@link #start()} or {@link #build()} once. */
    public static final class Builder {
        private ClusterConfig cluster;
        private Path base = Path.of("");
        private Integer node;
        private Function<ClusterConfig, Application> application;
        private Mixer mixer = KeyConflictMixer.unbounded();
        private boolean joining;
        private Consumer<Throwable> onFailure = failure -> {};
        private PrometheusMeterRegistry registry;

        private Builder() {}

        /** The cluster configuration file; relative paths inside it (bft keys) resolve against its folder. */
        public Builder config(Path file) {
            this.cluster = ClusterConfig.load(file);
            Path parent = file.toAbsolutePath().getParent();
            this.base = parent == null ? Path.of("") : parent;
            return this;
        }

        /** The cluster configuration; relative paths inside it resolve against the working directory. */
        public Builder config(ClusterConfig cluster) {
            this.cluster = Objects.requireNonNull(cluster, "cluster");
            this.base = Path.of("");
            return this;
        }

        /** This replica's node id, one of the configuration's {@code nodes}. */
        public Builder node(int node) {
            this.node = node;
            return this;
        }

        /**
         * The application. Optional for a node that runs no application: a verifier-only node of a quorum
         * profile, or the witness of a primary-backup pair ({@code witness = <id>}).
         */
        public Builder application(Application application) {
            Objects.requireNonNull(application, "application");
            this.application = cluster -> application;
            return this;
        }

        /** The application, made from the configuration (its {@code app.} settings, say) once it is read. */
        public Builder application(Function<ClusterConfig, Application> factory) {
            this.application = Objects.requireNonNull(factory, "factory");
            return this;
        }

        /** The mixer (default: {@link KeyConflictMixer#unbounded()}, Eve's first-fit over conflict keys). */
        public Builder mixer(Mixer mixer) {
            this.mixer = Objects.requireNonNull(mixer, "mixer");
            return this;
        }

        /** The replica restarts without its state and catches up from the others before it serves. */
        public Builder join(boolean joining) {
            this.joining = joining;
            return this;
        }

        /** Told when the replica stops because of an internal failure. */
        public Builder onFailure(Consumer<Throwable> onFailure) {
            this.onFailure = Objects.requireNonNull(onFailure, "onFailure");
            return this;
        }

        /** Where the replica's meters go (default: a registry of its own, served on {@code /metrics}). */
        public Builder meterRegistry(PrometheusMeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** Builds and starts the replica. */
        public Replica start() {
            ReplicaRuntime replica = build();
            try {
                replica.start();
            } catch (RuntimeException e) {
                replica.close();
                throw e;
            }
            return replica;
        }

        /** Builds the replica without starting it: its transport and threads are created, nothing runs. */
        public ReplicaRuntime build() {
            if (cluster == null) {
                throw new ConfigException("EveReplica needs a cluster configuration: config(path) or config(cluster)");
            }
            if (node == null) {
                throw new ConfigException("EveReplica needs this replica's node id: node(id), one of " + ids());
            }
            NodeAddress self = cluster.node(node);
            // Everything that can be refused is checked before anything is opened.
            TlsIdentity tls = ReplicaTransports.tlsIdentity(cluster, node);
            Envelopes envelopes = cluster.profile().quorum() && cluster.r() >= 1
                    ? Authenticators.envelopes(cluster, base, node)
                    : null;
            HostedRoles.Factory roles;
            VerifierStore verifierStore = null;
            Refusals refusals = new Refusals();
            if (cluster.profile().quorum()) {
                QuorumConfig quorum = QuorumConfig.from(cluster, node);
                if (cluster.storage().enabled() && quorum.hostsVerifier()) {
                    // Read (and a damaged file refused) now; it holds no thread until the verifier saves.
                    verifierStore = VerifierStore.open(
                            StorageConfig.from(cluster.storage(), node, base).dir(), node);
                }
                roles = QuorumRoles.of(
                        quorum,
                        envelopes == null ? Evidence.PLAIN : envelopes.evidence(),
                        verifierStore,
                        refusals,
                        cluster.overlapBatches());
            } else if (cluster.isWitness(node)) {
                roles = WitnessRoles.of(
                        node,
                        PrimaryBackupConfig.forWitness(cluster, node),
                        cluster.storageDir()
                                .map(dir ->
                                        new FileWitnessStore(base.resolve(dir).resolve("witness-" + node + ".state"))));
            } else {
                roles = PrimaryBackupRoles.of(PrimaryBackupConfig.from(cluster, node), cluster.overlapBatches());
                if (cluster.witness().isEmpty()) {
                    LOG.warn(
                            "node {}: primary-backup without a witness: safety rests on timing; a pause or partition"
                                    + " longer than failure.timeout-ms = {} may lose acknowledged writes (add a"
                                    + " witness: docs/primary-backup.md)",
                            node,
                            cluster.failureTimeout().toMillis());
                }
            }
            Application app = null;
            if (roles.hostsExecution()) {
                if (application == null) {
                    throw new ConfigException("node " + node + " hosts an execution replica in the "
                            + cluster.profile().key() + " profile: EveReplica needs an application(...)");
                }
                if (cluster.storage().enabled() && !roles.resumesFromDisk()) {
                    throw new ConfigException(
                            "storage.dir is set, but the " + cluster.profile().key() + " profile's"
                                    + " execution replicas cannot start from a recovered state (docs/operations.md, \"Storage\")");
                }
                app = Objects.requireNonNull(application.apply(cluster), "the application factory returned null");
            }
            PrometheusMeterRegistry meters =
                    registry != null ? registry : new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            NettyTransport.Builder nettyBuilder = NettyTransport.builder()
                    .self(node)
                    .listen(new InetSocketAddress(self.host(), self.port()))
                    .peers(peers())
                    .maxFrameBytes(cluster.maxFrameBytes())
                    .io(cluster.socketIo());
            if (tls != null) {
                nettyBuilder.tls(tls);
            }
            NettyTransport netty = nettyBuilder.build();
            StatusEndpoint endpoint = null;
            ReplicaRuntime replica;
            try {
                countClosedConnections(netty, meters);
                if (cluster.profile().quorum()) {
                    refusals.register(meters, node);
                }
                if (envelopes != null && envelopes.evidence() instanceof SignedEvidence signed) {
                    signed.register(meters, node);
                }
                Transport transport = ReplicaTransports.of(cluster, node, netty, tls, meters);
                if (envelopes != null) {
                    AuthenticatingTransport authenticating = new AuthenticatingTransport(transport, envelopes);
                    FunctionCounter.builder("eve.auth.rejected", authenticating, AuthenticatingTransport::rejected)
                            .description("messages dropped because they failed authentication")
                            .tag("node", Integer.toString(node))
                            .register(meters);
                    transport = authenticating;
                }
                ReplicaRuntimeBuilder runtime = ReplicaRuntime.builder()
                        .roles(roles)
                        .transport(transport)
                        .mixer(mixer)
                        .executorThreads(cluster.executorThreads())
                        .inlineBatchLimit(cluster.inlineBatchLimit())
                        .joining(joining)
                        .meterRegistry(meters)
                        .onFailure(onFailure);
                if (app != null) {
                    runtime.application(app);
                    if (cluster.storage().enabled()) {
                        runtime.storage(new Storage(StorageConfig.from(cluster.storage(), node, base), "node " + node));
                    }
                }
                if (verifierStore != null) {
                    runtime.closeWith(verifierStore);
                }
                ReplicaRuntime[] built = new ReplicaRuntime[1];
                if (cluster.metricsPort() > 0) {
                    endpoint = StatusEndpoint.serve(cluster.metricsPort() + node, meters, () -> built[0]);
                    runtime.closeWith(endpoint);
                }
                replica = runtime.build();
                built[0] = replica;
            } catch (RuntimeException e) {
                if (endpoint != null) {
                    endpoint.close();
                }
                netty.close();
                throw e;
            }
            LOG.info(
                    "node {}: {} {} on {}:{}, transport {} (TCP over {}){}",
                    node,
                    cluster.profile().key(),
                    cluster.isWitness(node) ? "witness" : "replica",
                    self.host(),
                    self.port(),
                    cluster.transport(),
                    netty.io().key(),
                    joining ? ", rejoining" : "");
            return replica;
        }

        private Map<Integer, InetSocketAddress> peers() {
            Map<Integer, InetSocketAddress> peers = new HashMap<>();
            cluster.nodes().forEach(n -> peers.put(n.id(), new InetSocketAddress(n.host(), n.port())));
            return peers;
        }

        private java.util.List<Integer> ids() {
            return cluster.nodes().stream().map(NodeAddress::id).toList();
        }

        private void countClosedConnections(NettyTransport netty, PrometheusMeterRegistry meters) {
            for (NettyTransport.ClosedBecause reason : NettyTransport.ClosedBecause.values()) {
                FunctionCounter.builder("eve.transport.closed", netty, t -> t.closedConnections(reason))
                        .description("connections the transport closed, by reason (bad handshake or frame, a"
                                + " handshake or frame that did not finish in time, a connection error)")
                        .tag("node", Integer.toString(node))
                        .tag("reason", reason.name().toLowerCase(Locale.ROOT))
                        .register(meters);
            }
            FunctionCounter.builder("eve.transport.self.connections", netty, NettyTransport::selfConnections)
                    .description("dials to a peer that connected to themselves (the peer's port drawn as the source"
                            + " port while nothing listened there), closed as failed dials")
                    .tag("node", Integer.toString(node))
                    .register(meters);
        }
    }
}
