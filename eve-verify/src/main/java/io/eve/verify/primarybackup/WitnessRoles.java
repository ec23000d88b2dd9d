package io.eve.verify.primarybackup;

import io.eve.Replica;
import io.eve.protocol.Message;
import io.eve.verify.runtime.HostedRoles;
import io.eve.verify.runtime.ReplicaHost;
import io.eve.verify.runtime.RoleStatus;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The witness of a primary-backup pair in the replica runtime: the {@link Witness} state machine, bound to
 * the {@link ReplicaHost}'s transport. It runs no application ({@link HostedRoles.Factory#hostsExecution()}
 * is false). Confined to the runtime's protocol mailbox.
 */
public final class WitnessRoles implements HostedRoles {
    private final Witness witness;

    private WitnessRoles(
            PrimaryBackupConfig config, ReplicaHost host, Optional<WitnessStore> store, LongSupplier seeds) {
        this.witness =
                new Witness(host.self(), config.nodes(), store, config.heartbeatIntervalNanos(), seeds, host::send);
    }

    /**
     * The witness role of node {@code self} for the pair of {@code config}.
     *
     * @param store where its state survives a restart, or empty: then a restarted witness grants nothing until
     *     both replicas have reported
     */
    public static HostedRoles.Factory of(int self, PrimaryBackupConfig config, Optional<WitnessStore> store) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(store, "store");
        return new HostedRoles.Factory() {
            @Override
            public int self() {
                return self;
            }

            @Override
            public boolean hostsExecution() {
                return false;
            }

            @Override
            public HostedRoles create(ReplicaHost host, boolean joining, LongSupplier seeds) {
                return new WitnessRoles(config, host, store, seeds);
            }
        };
    }

    /** The state machine, for tests that inspect it on the protocol mailbox. */
    public Witness witness() {
        return witness;
    }

    @Override
    public void start(long nanos) {
        witness.start(nanos);
    }

    @Override
    public void onMessage(int from, Message message, long nanos, long wallMillis) {
        witness.onMessage(from, message, nanos);
    }

    @Override
    public void onTick(long nanos, long wallMillis) {
        witness.onTick(nanos);
    }

    @Override
    public RoleStatus status() {
        Optional<WitnessState> state = witness.state();
        return new RoleStatus(
                state.isPresent() ? Replica.Role.VERIFIER : Replica.Role.JOINING,
                state.map(s -> "witness: " + (s.solo() ? "solo held by node " + s.holder() : "pair"))
                        .orElse("witness: waiting for both replicas' reports"),
                state.map(WitnessState::view).orElse(0L),
                -1,
                -1,
                0,
                0,
                "",
                true);
    }
}
