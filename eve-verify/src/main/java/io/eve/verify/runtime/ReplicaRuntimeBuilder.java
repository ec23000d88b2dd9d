package io.eve.verify.runtime;

import io.eve.Application;
import io.eve.mixer.Mixer;
import io.eve.storage.Storage;
import io.eve.transport.Transport;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Assembles a {@link ReplicaRuntime}: the roles (per profile: {@code PrimaryBackupRoles.of(config)},
 * {@code QuorumRoles.of(config, evidence)}) and the transport always; the application and the mixer when the
 * roles execute; the rest optional. Not thread-safe.
 */
public final class ReplicaRuntimeBuilder {
    HostedRoles.Factory roles;
    Transport transport;
    Application application;
    Mixer mixer;
    int executorThreads = Runtime.getRuntime().availableProcessors();
    int inlineBatchLimit = 1;
    boolean joining;
    Storage storage;
    long resumeView = -1;
    Consumer<Throwable> onFailure = failure -> {};
    LongSupplier nanoClock = System::nanoTime;
    MeterRegistry registry = new SimpleMeterRegistry();
    final List<AutoCloseable> closeWith = new ArrayList<>();

    ReplicaRuntimeBuilder() {}

    /** The protocol roles the node hosts, which also name the node. */
    public ReplicaRuntimeBuilder roles(HostedRoles.Factory roles) {
        this.roles = Objects.requireNonNull(roles, "roles");
        return this;
    }

    public ReplicaRuntimeBuilder transport(Transport transport) {
        this.transport = Objects.requireNonNull(transport, "transport");
        return this;
    }

    /** The replicated application (required when the roles execute). */
    public ReplicaRuntimeBuilder application(Application application) {
        this.application = Objects.requireNonNull(application, "application");
        return this;
    }

    /** The mixer (required when the roles execute). */
    public ReplicaRuntimeBuilder mixer(Mixer mixer) {
        this.mixer = Objects.requireNonNull(mixer, "mixer");
        return this;
    }

    public ReplicaRuntimeBuilder executorThreads(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("executorThreads must be at least 1, got " + threads);
        }
        this.executorThreads = threads;
        return this;
    }

    /**
     * Batches of at most this many requests run on the thread that delivered them (the transport's,
     * usually) when the stage is idle: no thread hand-off, the lowest latency, but that thread does nothing
     * else meanwhile. Larger batches run on the stage thread, and so does every batch while recent requests
     * took more than {@value ReplicaRuntime#INLINE_COST_LIMIT_MICROS} us each (a blocking request would hold
     * the event loop). 0 sends every batch there. The default, 1, suits requests that take microseconds.
     */
    public ReplicaRuntimeBuilder inlineBatchLimit(int requests) {
        if (requests < 0) {
            throw new IllegalArgumentException("inlineBatchLimit must not be negative, got " + requests);
        }
        this.inlineBatchLimit = requests;
        return this;
    }

    /**
     * The node restarts without its state: an execution replica catches up by transfer before it serves, a
     * verifier takes no part until a new view starts (docs/quorum.md, "Restarts").
     */
    public ReplicaRuntimeBuilder joining(boolean joining) {
        this.joining = joining;
        return this;
    }

    /**
     * Durable storage for the node's execution replica (docs/operations.md, "Storage"): when the runtime is
     * built it recovers the stage from it, and a node that recovered anything joins as {@link #joining} does,
     * asking its peers only for what it lacks. The runtime closes it. Without it nothing is stored.
     */
    public ReplicaRuntimeBuilder storage(Storage storage) {
        this.storage = Objects.requireNonNull(storage, "storage");
        return this;
    }

    /**
     * The launcher chose this node to lead a cluster restarted as a whole: it recovered the highest committed
     * batch of all, so it starts as the primary of {@code view} (a view above every recovered one in which this
     * node is the primary) instead of joining. Needs {@link #storage}.
     */
    public ReplicaRuntimeBuilder resumeAsPrimary(long view) {
        if (view < 0) {
            throw new IllegalArgumentException("view must not be negative, got " + view);
        }
        this.resumeView = view;
        return this;
    }

    /** Told when the node stops because of an internal failure. */
    public ReplicaRuntimeBuilder onFailure(Consumer<Throwable> onFailure) {
        this.onFailure = Objects.requireNonNull(onFailure, "onFailure");
        return this;
    }

    /** The monotonic clock of timeouts and batching (tests pause it to model a stopped process). */
    public ReplicaRuntimeBuilder nanoClock(LongSupplier nanoClock) {
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        return this;
    }

    /** Where counters and histograms go (docs/operations.md lists them). */
    public ReplicaRuntimeBuilder meterRegistry(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
        return this;
    }

    /** A resource that closes after the runtime (an endpoint serving its status, say); last added, first closed. */
    public ReplicaRuntimeBuilder closeWith(AutoCloseable resource) {
        closeWith.add(Objects.requireNonNull(resource, "resource"));
        return this;
    }

    public ReplicaRuntime build() {
        if (roles == null) {
            throw new IllegalArgumentException("a replica needs its roles (PrimaryBackupRoles.of or QuorumRoles.of)");
        }
        if (transport == null) {
            throw new IllegalArgumentException("node " + roles.self() + " needs a transport");
        }
        if (resumeView >= 0 && (storage == null || joining)) {
            throw new IllegalArgumentException(
                    "node " + roles.self() + ": resumeAsPrimary needs storage and excludes joining");
        }
        if (storage != null && !roles.hostsExecution()) {
            throw new IllegalArgumentException("node " + roles.self() + " hosts no execution replica: it has no"
                    + " batches to store (a verifier keeps its memory in a VerifierStore given to QuorumRoles.of)");
        }
        if (storage != null && !roles.resumesFromDisk()) {
            throw new IllegalArgumentException("node " + roles.self() + ": these roles cannot start from a state"
                    + " recovered from disk (docs/operations.md, \"Storage\")");
        }
        return new ReplicaRuntime(this);
    }
}
