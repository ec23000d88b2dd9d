package io.eve.verify.primarybackup;

import io.eve.Replica;
import io.eve.Reply;
import io.eve.batch.Batch;
import io.eve.protocol.Message;
import io.eve.verify.runtime.HostedRoles;
import io.eve.verify.runtime.ReplicaHost;
import io.eve.verify.runtime.RoleStatus;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * A primary-backup replica's role in the replica runtime: the {@link PrimaryBackup} state machine, its
 * {@link Actions} bound to the {@link ReplicaHost}. Confined to the runtime's protocol mailbox.
 */
public final class PrimaryBackupRoles implements HostedRoles {
    private final PrimaryBackup machine;
    private final ReplicaHost host;

    private PrimaryBackupRoles(
            PrimaryBackupConfig config, ReplicaHost host, boolean joining, LongSupplier seeds, boolean overlap) {
        this.host = host;
        this.machine =
                new PrimaryBackup(config, new Bindings(), joining, host.recoveredSeq(), host.recoveredView(), seeds);
        if (host.recoveredEveryAcknowledgedBatch()) {
            machine.recoveredEveryAcknowledgedBatch();
        }
        if (overlap) {
            host.overlapBatches(seq -> machine.onStageDraining(seq, host.wallMillis()));
        }
    }

    /** The roles of node {@code config.self()}, with batch overlap (the default; docs/state.md). */
    public static HostedRoles.Factory of(PrimaryBackupConfig config) {
        return of(config, true);
    }

    /**
     * The roles of node {@code config.self()}.
     *
     * @param overlapBatches whether the next batch's requests that conflict with nothing of the batch in
     *     progress start while it ends, and the primary closes a batch when the stage runs its last requests
     *     (docs/state.md, "Overlapping batches"); off gives the simpler schedule, each batch after the last
     */
    public static HostedRoles.Factory of(PrimaryBackupConfig config, boolean overlapBatches) {
        Objects.requireNonNull(config, "config");
        return new HostedRoles.Factory() {
            @Override
            public int self() {
                return config.self();
            }

            @Override
            public boolean hostsExecution() {
                return true;
            }

            @Override
            public boolean resumesFromDisk() {
                return true;
            }

            @Override
            public HostedRoles create(ReplicaHost host, boolean joining, LongSupplier seeds) {
                return new PrimaryBackupRoles(config, host, joining, seeds, overlapBatches);
            }
        };
    }

    /** The state machine, for tests that inspect it on the protocol mailbox. */
    public PrimaryBackup machine() {
        return machine;
    }

    @Override
    public void start(long nanos) {
        machine.start(nanos);
    }

    @Override
    public void onMessage(int from, Message message, long nanos, long wallMillis) {
        machine.onMessage(from, message, nanos, wallMillis);
    }

    @Override
    public void onTick(long nanos, long wallMillis) {
        machine.onTick(nanos, wallMillis);
    }

    @Override
    public RoleStatus status() {
        boolean primary = machine.isPrimary();
        Replica.Role role =
                machine.joining() ? Replica.Role.JOINING : primary ? Replica.Role.PRIMARY : Replica.Role.BACKUP;
        return new RoleStatus(
                role,
                primary ? "primary" : "backup",
                machine.view(),
                machine.committed(),
                -1,
                0,
                machine.divergedObjects(),
                machine.lastViewChange(),
                true);
    }

    /** The state machine's actions, bound to the runtime. */
    private final class Bindings implements Actions {
        @Override
        public void send(int to, Message message) {
            host.send(to, message);
        }

        @Override
        public void execute(long view, long epoch, Batch batch, boolean sequential) {
            host.execute(batch, sequential, executed -> machine.onExecuted(view, epoch, executed, host.wallMillis()));
        }

        @Override
        public void rollbackTo(long seq) {
            host.rollbackTo(seq);
        }

        @Override
        public void markStable(long seq) {
            host.markStable(seq);
        }

        @Override
        public void transfer(int to, long sinceSeq, long view, long epoch) {
            host.onStageThread(stage -> host.send(
                    to, new Message.StateTransfer(view, epoch, stage.lastToken(), stage.deltaSince(sinceSeq))));
        }

        @Override
        public void apply(Message.StateTransfer transfer) {
            host.apply(
                    transfer.delta(),
                    transfer.token(),
                    result -> machine.onApplied(transfer, result.applied(), result.reason()));
        }

        @Override
        public void release(Reply reply) {
            host.release(reply);
        }
    }
}
