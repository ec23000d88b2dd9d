package io.eve.verify.quorum;

import io.eve.Replica;
import io.eve.Reply;
import io.eve.batch.Batch;
import io.eve.execution.Token;
import io.eve.protocol.Message;
import io.eve.verify.runtime.HostedRoles;
import io.eve.verify.runtime.ReplicaHost;
import io.eve.verify.runtime.RoleStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A quorum process's roles in the replica runtime (crash and bft profiles, docs/quorum.md): an {@link
 * ExecutionReplica}, a {@link Verifier}, or both, as the configuration gives the node. Messages for the
 * verifier go to it, the rest to the execution replica; a message one role sends to this node reaches the
 * other through the runtime's mailbox, after the current event. Confined to the runtime's protocol mailbox.
 */
public final class QuorumRoles implements HostedRoles {
    private static final Logger LOG = LoggerFactory.getLogger(QuorumRoles.class);

    private final ReplicaHost host;
    private final ExecutionReplica replica;
    private final Verifier verifier;

    private QuorumRoles(
            QuorumConfig config,
            Evidence evidence,
            VerifierStore store,
            ReplicaHost host,
            boolean joining,
            LongSupplier seeds,
            Refusals refusals,
            boolean overlapBatches) {
        this.host = host;
        this.replica = config.hostsExecution()
                ? new ExecutionReplica(
                        config,
                        new Bindings(),
                        joining,
                        host.recoveredToken(),
                        host.recoveredExecuted(),
                        seeds,
                        refusals)
                : null;
        if (replica != null) {
            replica.ledBefore(host.recoveredLedView());
            if (overlapBatches) {
                host.overlapBatches(seq -> replica.onStageDraining(seq, host.wallMillis()));
            }
        }
        VerifierMemory memory =
                store == null ? null : store.memory("verifier " + config.self(), () -> this::onVerifierDurable);
        this.verifier = config.hostsVerifier()
                ? new Verifier(config, host::send, evidence, joining, host.incarnation(), memory, refusals)
                : null;
    }

    /**
     * The roles of node {@code config.self()}.
     *
     * @param evidence how the verifier keeps and opens forwarded proofs: {@link Evidence#PLAIN} without
     *     authenticators (crash), the authenticators' for bft
     */
    public static HostedRoles.Factory of(QuorumConfig config, Evidence evidence) {
        return of(config, evidence, null);
    }

    /**
     * The roles of node {@code config.self()}, its verifier remembering what it must across a crash in {@code
     * store} (docs/quorum.md, "Durable verifiers"); the caller closes the store after the runtime (the
     * builder's {@code closeWith}).
     *
     * @param store null: the verifier persists nothing
     */
    public static HostedRoles.Factory of(QuorumConfig config, Evidence evidence, VerifierStore store) {
        return of(config, evidence, store, new Refusals());
    }

    /**
     * As {@link #of(QuorumConfig, Evidence, VerifierStore)}, the roles counting what they refuse from their peers
     * (docs/quorum.md, "Bounded memory") in {@code refusals}, which the caller publishes ({@link
     * Refusals#register}).
     */
    public static HostedRoles.Factory of(
            QuorumConfig config, Evidence evidence, VerifierStore store, Refusals refusals) {
        return of(config, evidence, store, refusals, false);
    }

    /**
     * As {@link #of(QuorumConfig, Evidence, VerifierStore, Refusals)}; with {@code overlapBatches}, an execution
     * replica's stage starts the next batch's requests that conflict with nothing of the batch in progress
     * while that one ends, and the primary closes its next batch then (docs/state.md, "Overlapping batches").
     */
    public static HostedRoles.Factory of(
            QuorumConfig config, Evidence evidence, VerifierStore store, Refusals refusals, boolean overlapBatches) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(refusals, "refusals");
        Objects.requireNonNull(evidence, "evidence");
        if (store != null && !config.hostsVerifier()) {
            throw new IllegalArgumentException(
                    "process " + config.self() + " hosts no verifier: it has no verifier state to store in " + store);
        }
        return new HostedRoles.Factory() {
            @Override
            public int self() {
                return config.self();
            }

            @Override
            public boolean hostsExecution() {
                return config.hostsExecution();
            }

            /** An execution replica resumes from the batch its stage recovered (docs/quorum.md, "Durable replicas"). */
            @Override
            public boolean resumesFromDisk() {
                return config.hostsExecution();
            }

            /**
             * A certificate the verifiers remember must name a state some replica's disk holds after a restart of
             * every process: each executed batch is durable before its {@code Verify} leaves.
             */
            @Override
            public boolean persistsExecuted() {
                return config.hostsExecution();
            }

            @Override
            public HostedRoles create(ReplicaHost host, boolean joining, LongSupplier seeds) {
                return new QuorumRoles(config, evidence, store, host, joining, seeds, refusals, overlapBatches);
            }
        };
    }

    /** The roles of node {@code config.self()} without authenticators (the crash profile). */
    public static HostedRoles.Factory of(QuorumConfig config) {
        return of(config, Evidence.PLAIN);
    }

    /** Called by the verifier's store on its writer thread: the verifier hears it on the protocol mailbox. */
    private void onVerifierDurable(long version) {
        host.onProtocol(() -> verifier.onDurable(version));
    }

    /** The execution replica, or null; for tests that inspect it on the protocol mailbox. */
    public ExecutionReplica replica() {
        return replica;
    }

    /** The verifier, or null; for tests that inspect it on the protocol mailbox. */
    public Verifier verifier() {
        return verifier;
    }

    @Override
    public void start(long nanos) {
        if (replica != null) {
            replica.start(nanos);
        }
        if (verifier != null) {
            verifier.start(nanos);
        }
    }

    @Override
    public void onMessage(int from, Message message, long nanos, long wallMillis) {
        if (isForVerifier(message)) {
            if (verifier != null) {
                verifier.onMessage(from, message, nanos);
            }
        } else if (replica != null) {
            replica.onMessage(from, message, nanos, wallMillis);
        }
    }

    @Override
    public void onTick(long nanos, long wallMillis) {
        if (replica != null) {
            replica.onTick(nanos, wallMillis);
        }
        if (verifier != null) {
            verifier.onTick(nanos);
        }
    }

    @Override
    public RoleStatus status() {
        List<String> names = new ArrayList<>();
        Replica.Role role = Replica.Role.VERIFIER;
        if (replica != null) {
            role = replica.isPrimary() ? Replica.Role.PRIMARY : Replica.Role.BACKUP;
            names.add(replica.isPrimary() ? "execution primary" : "execution replica");
        }
        if (verifier != null) {
            names.add("verifier");
        }
        if ((replica != null && replica.joining()) || (verifier != null && verifier.recovering())) {
            role = Replica.Role.JOINING;
        }
        return new RoleStatus(
                role,
                String.join(" + ", names),
                replica != null ? replica.view() : verifier.view(),
                replica != null ? replica.committed() : -1,
                verifier != null ? verifier.committedSeq() : -1,
                verifier != null ? verifier.viewChangesStarted() : 0,
                verifier != null ? verifier.divergedObjects() : 0,
                verifier == null ? "" : java.util.Objects.requireNonNullElse(verifier.lastViewChangeReason(), ""),
                verifier == null || verifier.countsInViewChanges());
    }

    /** Whether a message is addressed to the verifier role (the rest go to the execution replica). */
    public static boolean isForVerifier(Message message) {
        return message instanceof Message.Verify
                || message instanceof Message.Prepare
                || message instanceof Message.CommitVote
                || message instanceof Message.ViewChange
                || message instanceof Message.NewView
                || message instanceof Message.Suspect
                || message instanceof Message.JoinQuery
                || message instanceof Message.JoinState
                || message instanceof Message.ViewQuery
                || message instanceof Message.Authenticated
                || message instanceof Message.Signed
                || message instanceof Message.ObjectDigests;
    }

    /**
     * The chain a state transfer from {@code baseSeq} towards {@code agreed} serves, or null when this stage
     * cannot serve it. Its last token is the version served (docs/quorum.md, "State transfer"): {@code agreed}
     * itself, never a later version this stage executed but the verifiers have not agreed on (a token vouches
     * for nothing after it, so a state past the agreed one could be invented by a Byzantine server). A target
     * this stage has already passed as stable (the requester asked for the newest token it knew, the server
     * committed more meanwhile) is served at the stable batch instead, which the verifiers agreed on too: the
     * requester installs it if it knows that token as agreed, and asks again otherwise. Staying silent made a
     * rejoining replica wait four retransmission periods per miss, under load long enough for its forwarded
     * requests to make it suspect a healthy primary (the simulator's crash-rejoin seed 8).
     */
    public static List<Token> chainToServe(io.eve.execution.ExecutionStage stage, long baseSeq, Token agreed) {
        if (baseSeq < -1 || baseSeq > agreed.seq()) {
            return null;
        }
        long stable = stage.stableSeq();
        Token held = stage.tokenAt(agreed.seq());
        if (held == null && agreed.seq() < stable) {
            Token stableToken = stage.tokenAt(stable);
            return stableToken == null ? null : List.of(stableToken);
        }
        if (held == null || !held.matches(agreed)) {
            return null;
        }
        return chainBetween(stage, agreed.seq(), Math.max(agreed.seq(), stable));
    }

    /**
     * The state transfer this stage serves to a replica at {@code baseSeq} that asked for {@code agreed}: the
     * chain {@link #chainToServe} gives and the delta to its last token, or null. Called on the stage's thread.
     */
    public static Message.ChainTransfer transferToServe(
            io.eve.execution.ExecutionStage stage, long baseSeq, Token agreed) {
        List<Token> chain = chainToServe(stage, baseSeq, agreed);
        if (chain == null) {
            return null;
        }
        long served = chain.get(chain.size() - 1).seq();
        return new Message.ChainTransfer(chain, stage.deltaSince(baseSeq, served));
    }

    /** The stage's tokens from {@code from} to {@code to}, or null if it no longer holds one of them. */
    private static List<Token> chainBetween(io.eve.execution.ExecutionStage stage, long from, long to) {
        List<Token> chain = new ArrayList<>();
        for (long s = from; s <= to; s++) {
            Token token = stage.tokenAt(s);
            if (token == null) {
                return null;
            }
            chain.add(token);
        }
        return chain;
    }

    /** The execution replica's actions, bound to the runtime. */
    private final class Bindings implements ExecutionActions {
        @Override
        public void send(int to, Message message) {
            if (message instanceof Message.Verify verify && verify.token().seq() > 0) {
                host.afterExecutedDurable(verify.token().seq(), () -> host.send(to, message));
            } else if (message instanceof Message.ExecuteBatch batch) {
                // Only the view's primary sends batches: the first of a view waits until its disk says it led it.
                host.afterLedDurable(batch.view(), () -> host.send(to, message));
            } else {
                host.send(to, message);
            }
        }

        @Override
        public void execute(long epoch, Batch batch, boolean sequential) {
            host.execute(batch, sequential, executed -> replica.onExecuted(epoch, executed, host.wallMillis()));
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
        public void serveTransfer(int to, long baseSeq, Token agreed) {
            host.onStageThread(stage -> {
                Message.ChainTransfer transfer = transferToServe(stage, baseSeq, agreed);
                if (transfer == null) {
                    LOG.debug("node {}: no transfer to {} from {} for {}", host.self(), to, baseSeq, agreed);
                    return;
                }
                host.send(to, transfer);
            });
        }

        @Override
        public void apply(Message.ChainTransfer transfer) {
            Token last = transfer.chain().get(transfer.chain().size() - 1);
            host.apply(
                    transfer.delta(), last, result -> replica.onApplied(transfer, result.applied(), result.reason()));
        }

        @Override
        public void replyFromState(long clientId, long requestSeq) {
            host.onStage(stage -> {
                Reply reply = stage.committedReply(clientId, requestSeq);
                if (reply != null) {
                    host.send((int) clientId, new Message.ClientReply(reply));
                }
            });
        }

        @Override
        public void release(Reply reply) {
            host.release(reply);
        }

        @Override
        public void resend(Reply reply) {
            host.resend(reply);
        }
    }
}
