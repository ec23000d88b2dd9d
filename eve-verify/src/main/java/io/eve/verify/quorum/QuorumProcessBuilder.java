package io.eve.verify.quorum;

import io.eve.Application;
import io.eve.mixer.Mixer;
import io.eve.transport.Transport;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Assembles a {@link QuorumProcess}: the configuration and transport always, the application and mixer
 * when the process hosts an execution replica, the rest optional (the same options as
 * {@code PrimaryBackupReplica.Builder}, plus the verifier's {@link Evidence}). Not thread-safe.
 */
public final class QuorumProcessBuilder {
    QuorumConfig config;
    Transport transport;
    Application application;
    Mixer mixer;
    Evidence evidence = Evidence.PLAIN;
    int executorThreads = Runtime.getRuntime().availableProcessors();
    int inlineBatchLimit = 1;
    boolean joining;
    Consumer<Throwable> onFailure = failure -> {};
    LongSupplier nanoClock;
    MeterRegistry registry = new SimpleMeterRegistry();

    QuorumProcessBuilder() {}

    public QuorumProcessBuilder config(QuorumConfig config) {
        this.config = config;
        return this;
    }

    public QuorumProcessBuilder transport(Transport transport) {
        this.transport = transport;
        return this;
    }

    /** The replicated application (required when the process hosts an execution replica). */
    public QuorumProcessBuilder application(Application application) {
        this.application = application;
        return this;
    }

    /** The mixer (required when the process hosts an execution replica). */
    public QuorumProcessBuilder mixer(Mixer mixer) {
        this.mixer = mixer;
        return this;
    }

    /** How the verifier keeps and opens forwarded proofs; {@link Evidence#PLAIN} (no authenticators) by default. */
    public QuorumProcessBuilder evidence(Evidence evidence) {
        this.evidence = Objects.requireNonNull(evidence, "evidence");
        return this;
    }

    public QuorumProcessBuilder executorThreads(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("executorThreads must be at least 1, got " + threads);
        }
        this.executorThreads = threads;
        return this;
    }

    /** Batches of at most this many requests run on the delivering thread when the stage is idle (default 1). */
    public QuorumProcessBuilder inlineBatchLimit(int requests) {
        if (requests < 0) {
            throw new IllegalArgumentException("inlineBatchLimit must not be negative, got " + requests);
        }
        this.inlineBatchLimit = requests;
        return this;
    }

    /**
     * The process restarts without its state: the execution replica catches up by transfer before it
     * serves, the verifier takes no part until a new view starts (docs/quorum.md, "Restarts").
     */
    public QuorumProcessBuilder joining(boolean joining) {
        this.joining = joining;
        return this;
    }

    /** Told when the process stops because of an internal failure. */
    public QuorumProcessBuilder onFailure(Consumer<Throwable> onFailure) {
        this.onFailure = Objects.requireNonNull(onFailure, "onFailure");
        return this;
    }

    /** The monotonic clock of timeouts and batching (tests pause it to model a stopped process). */
    public QuorumProcessBuilder nanoClock(LongSupplier nanoClock) {
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        return this;
    }

    /** Where counters and histograms go (docs/operations.md lists them). */
    public QuorumProcessBuilder meterRegistry(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
        return this;
    }

    public QuorumProcess build() {
        return QuorumProcess.create(this);
    }
}
