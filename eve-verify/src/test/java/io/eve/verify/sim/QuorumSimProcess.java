package io.eve.verify.sim;

import io.eve.Reply;
import io.eve.batch.Batch;
import io.eve.execution.Executed;
import io.eve.execution.ExecutionStage;
import io.eve.execution.Token;
import io.eve.merkle.ApplyResult;
import io.eve.merkle.Digest;
import io.eve.merkle.StateDelta;
import io.eve.mixer.conflict.KeyConflictMixer;
import io.eve.protocol.Message;
import io.eve.verify.auth.Envelopes;
import io.eve.verify.auth.SignedEvidence;
import io.eve.verify.quorum.Evidence;
import io.eve.verify.quorum.ExecutionActions;
import io.eve.verify.quorum.ExecutionReplica;
import io.eve.verify.quorum.QuorumConfig;
import io.eve.verify.quorum.Verifier;
import io.eve.verify.quorum.VerifierMemory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * One incarnation of a quorum process: a real {@link ExecutionReplica} with a real {@link ExecutionStage}
 * (operations take simulated time and run one after another, as on the runtime's stage thread) and/or a
 * real {@link Verifier}. A Byzantine process runs the same machines but lies on the way out, as its
 * {@link Byzantine} behaviour says. A crash ends the incarnation; a restart builds a new one.
 */
final class QuorumSimProcess {
    private static final long TICK_NANOS = 5_000_000L;

    /** How a Byzantine process lies; a correct process has none of these. */
    enum Byzantine {
        NONE,
        WRONG_TOKENS,
        WRONG_REPLIES,
        EQUIVOCATING_PRIMARY,
        EQUIVOCATING_VERIFIER,
        /** Forges messages in other processes' names ({@link Forgeries}). */
        FORGING_ORIGIN,
        /** Tampers with forwarded evidence in view changes and new views ({@link Forgeries}). */
        TAMPERING_EVIDENCE,
        /** Replays envelopes it received ({@link Forgeries}). */
        REPLAYING,
        /**
         * bft-forge-evidence: forges the other verifiers' signed {@code Prepare}s in its view changes (it holds
         * only its own signing key) and {@code VerifyResponse}s in their names on spoofed links ({@link
         * Forgeries}); its own responses carry a wrong token, which a forged one would complete to r + 1.
         */
        FORGING_EVIDENCE
    }

    final int id;
    final int incarnation;
    final SimCounter app = new SimCounter();
    final ExecutionStage stage;
    final ExecutionReplica replica;
    final Verifier verifier;
    final Byzantine byzantine;
    private final QuorumSimulation sim;
    private final QuorumConfig config;
    private final Envelopes envelopes;
    /** The evidence this life's verifier seals and opens with (what counts its unchecked certificates). */
    private final Evidence verifierEvidence;

    private final Forgeries forgeries;
    private long rejected;
    private final Deque<Runnable> operations = new ArrayDeque<>();
    private final Deque<String> operationNames = new ArrayDeque<>();
    private final Deque<Long> operationNanos = new ArrayDeque<>();
    private final NavigableMap<Long, Executed> executions = new TreeMap<>();
    private boolean stageBusy;
    private boolean alive = true;
    private final Disk disk;
    // The view led, as ReplicaRuntime keeps it: the highest asked for, and the batches waiting for its force.
    private long ledRequested = -1;
    private final java.util.NavigableMap<Long, List<Runnable>> afterLed = new java.util.TreeMap<>();
    private long protocolStable;
    /**
     * crash-epm: a concurrency bug that adds wrongly in the first request of this batch when it runs in
     * parallel (never when sequential), the same on every replica that has it; -1: none.
     */
    long concurrencyBugAt = -1;

    /**
     * Profiles {@code *-restart-all}: what a process's disk holds across its incarnations (docs/quorum.md,
     * "Durable replicas and verifiers"). The execution replica's part is taken when the process crashes: the
     * state of the last batch its protocol declared committed (replies leave only once that is durable) and,
     * after it, the batches it executed (each durable before its {@code Verify} leaves). The verifier's memory
     * lives here between incarnations and makes a record durable a simulated force after it was saved; a
     * record not yet durable at a crash is lost.
     */
    static final class Disk implements VerifierMemory {
        private final QuorumSimulation sim;
        long seq;
        StateDelta state;
        Token token;
        List<Executed> tail = List.of();
        /** The highest view the execution replica durably recorded it led (its batches leave after); -1: none. */
        long ledView = -1;

        private VerifierMemory.Remembered durable;
        /** The incarnation that wrote {@link #durable}, and the version it gave it. */
        private QuorumSimProcess durableWriter;

        private long durableVersion;
        private QuorumSimProcess owner;
        private long forces;

        Disk(QuorumSimulation sim) {
            this.sim = sim;
        }

        @Override
        public VerifierMemory.Remembered load() {
            return durable;
        }

        @Override
        public void save(VerifierMemory.Remembered record, long version) {
            QuorumSimProcess writer = owner;
            sim.queue()
                    .after(
                            200_000L + sim.forceNanos(),
                            writer.name() + " verifier record " + version + " durable",
                            () -> {
                                if (!writer.alive) {
                                    return;
                                }
                                // As StateFileWriter: a record never replaces a later one of the same life (the
                                // forces end in any order here; a real writer writes the latest record submitted,
                                // superseding the ones before it).
                                if (writer != durableWriter || version > durableVersion) {
                                    durable = record;
                                    durableWriter = writer;
                                    durableVersion = version;
                                    forces++;
                                }
                                writer.verifier.onDurable(version);
                            });
        }

        /** Forces of the verifier's record, all incarnations. */
        long forces() {
            return forces;
        }

        /** The crash of {@code process}: what its execution replica had made durable stays. */
        void keep(QuorumSimProcess process) {
            if (process.stage == null) {
                return;
            }
            ExecutionStage stage = process.stage;
            long committed = Math.max(stage.stableSeq(), Math.min(process.protocolStable, stage.executedSeq()));
            List<Executed> after = new ArrayList<>();
            for (long s = committed + 1; process.executions.containsKey(s); s++) {
                after.add(process.executions.get(s));
            }
            tail = List.copyOf(after);
            if (committed == 0) {
                return;
            }
            stage.rollbackTo(committed);
            seq = committed;
            token = stage.lastToken();
            state = stage.deltaSince(0);
        }
    }

    QuorumSimProcess(
            QuorumSimulation sim,
            QuorumConfig config,
            int incarnation,
            boolean restarted,
            Byzantine byzantine,
            LongSupplier seeds,
            Envelopes envelopes,
            Forgeries forgeries) {
        this(sim, config, incarnation, restarted, byzantine, seeds, envelopes, forgeries, null);
    }

    QuorumSimProcess(
            QuorumSimulation sim,
            QuorumConfig config,
            int incarnation,
            boolean restarted,
            Byzantine byzantine,
            LongSupplier seeds,
            Envelopes envelopes,
            Forgeries forgeries,
            Disk disk) {
        this.sim = sim;
        this.config = config;
        this.id = config.self();
        this.incarnation = incarnation;
        this.byzantine = byzantine;
        this.envelopes = envelopes;
        this.forgeries = forgeries;
        this.stage = config.hostsExecution()
                ? new ExecutionStage(app, KeyConflictMixer.unbounded(), new InlineExecutor())
                : null;
        Token recovered = null;
        List<Executed> executedAfter = new ArrayList<>();
        if (disk != null && stage != null) {
            if (disk.state != null) {
                ApplyResult result = stage.apply(disk.state, disk.token);
                if (!result.applied()) {
                    throw new IllegalStateException(name() + ": the disk's state does not load: " + result.reason());
                }
                stage.markStable(disk.seq);
                protocolStable = disk.seq;
                recovered = disk.token;
            }
            for (Executed logged : disk.tail) {
                if (logged.seq() != stage.executedSeq() + 1) {
                    break;
                }
                Executed again = stage.execute(logged.batch(), logged.sequential());
                if (!again.token().matches(logged.token())) {
                    stage.rollbackTo(logged.seq() - 1);
                    break;
                }
                executions.put(again.seq(), again);
                executedAfter.add(again);
            }
        }
        this.replica = config.hostsExecution()
                ? new ExecutionReplica(config, new Bindings(), restarted, recovered, executedAfter, seeds)
                : null;
        this.disk = disk;
        if (disk != null) {
            disk.owner = this;
            if (replica != null) {
                replica.ledBefore(disk.ledView);
                ledRequested = disk.ledView;
            }
        }
        this.verifierEvidence = envelopes == null ? Evidence.PLAIN : envelopes.evidence();
        this.verifier = config.hostsVerifier()
                ? new Verifier(
                        config,
                        this::send,
                        verifierEvidence,
                        restarted,
                        // Ordered as Incarnations orders them, and random below (so different per process).
                        ((long) incarnation << 32) | (seeds.getAsLong() >>> 32),
                        disk)
                : null;
    }

    String name() {
        return "process " + id + "#" + incarnation;
    }

    boolean correct() {
        return byzantine == Byzantine.NONE;
    }

    /**
     * Certificates this life's verifier made without checking a signature, as its evidence counted them for
     * {@code /metrics} (docs/quorum.md, "Signed evidence", rule 2); 0 without signed evidence.
     */
    long uncheckedCertificates() {
        return verifierEvidence instanceof SignedEvidence signed ? signed.uncheckedCertificates() : 0;
    }

    void start() {
        if (replica != null) {
            replica.start(sim.now());
        }
        if (verifier != null) {
            verifier.start(sim.now());
        }
        scheduleTick();
    }

    private void scheduleTick() {
        sim.queue().after(TICK_NANOS, name() + " tick", () -> {
            if (alive) {
                if (replica != null) {
                    replica.onTick(sim.now(), sim.wallMillis());
                }
                if (verifier != null) {
                    verifier.onTick(sim.now());
                }
                scheduleTick();
            }
        });
    }

    /** The stage is busy with nothing for {@code nanos}: a scheduler or collector pause on this process. */
    void stall(long nanos) {
        enqueue("stall", nanos, () -> {});
    }

    void crash() {
        alive = false;
        operations.clear();
    }

    boolean alive() {
        return alive;
    }

    boolean stageIdle() {
        return !stageBusy && operations.isEmpty();
    }

    void onMessage(int from, Message received) {
        if (!alive) {
            return;
        }
        Message message = received;
        if (forgeries != null) {
            forgeries.onReceive(from, received);
        }
        if (envelopes != null) {
            // The authenticated link of the bft profiles (AuthenticatingTransport's rules).
            Envelopes.Inbound inbound = envelopes.inbound(from, received);
            if (!inbound.accepted()) {
                rejected++;
                sim.onRejected(this, from, inbound.rejection(), received);
                return;
            }
            message = inbound.message();
        }
        if (io.eve.verify.quorum.QuorumRoles.isForVerifier(message)) {
            if (verifier != null) {
                boolean recovering = verifier.recovering();
                verifier.onMessage(from, message, sim.now());
                if (recovering && !verifier.recovering() && correct()) {
                    sim.onRecovered(this, verifier.committedToken());
                }
            }
        } else if (replica != null) {
            replica.onMessage(from, message, sim.now(), sim.wallMillis());
        }
    }

    /** Messages dropped by the authenticated link. */
    long rejected() {
        return rejected;
    }

    /** This incarnation's executions still held whose replies include {@code reply}'s request, latest first. */
    List<Executed> executionsAnswering(Reply reply) {
        List<Executed> answering = new ArrayList<>();
        for (Executed executed : executions.descendingMap().values()) {
            for (Reply candidate : executed.replies()) {
                if (candidate.clientId() == reply.clientId() && candidate.requestSeq() == reply.requestSeq()) {
                    answering.add(executed);
                    break;
                }
            }
        }
        return answering;
    }

    /** This incarnation's latest execution of batch {@code seq}, if its stage still holds it; else {@code null}. */
    Executed execution(long seq) {
        return executions.get(seq);
    }

    long protocolStable() {
        return protocolStable;
    }

    // ---- the way out, where a Byzantine process lies ------------------------------------------------

    private void send(int to, Message message) {
        if (correct() && message instanceof Message.VerifyResponse response) {
            sim.onVerifierCommit(this, response.token());
            sim.onVerifierResponse(this, response);
        }
        if (correct() && message instanceof Message.ExecuteBatch batch) {
            sim.onExecuteBatch(this, batch);
        }
        Message sent = message instanceof Message.Signed signed && signed.origin() == id && envelopes != null
                ? lieSigned(to, signed)
                : lie(to, message);
        sim.network().send(id, to, envelopes == null ? sent : envelopes.outbound(to, sent));
        if (forgeries != null) {
            forgeries.afterSend(to, message);
        }
    }

    /**
     * Its own signed evidence: the lie is told about the message inside, which it then signs with its own key,
     * as a Byzantine verifier can.
     */
    private Message lieSigned(int to, Message.Signed signed) {
        Message inner = sim.codec().decode(signed.frame());
        Message told = lie(to, inner);
        return told.equals(inner) ? signed : envelopes.evidence().seal(told);
    }

    private Message lie(int to, Message message) {
        switch (byzantine) {
            case WRONG_TOKENS:
                if (message instanceof Message.Verify verify) {
                    return new Message.Verify(verify.view(), wrong(verify.token()));
                }
                return message;
            case WRONG_REPLIES:
                if (message instanceof Message.ClientReply reply) {
                    Reply real = reply.reply();
                    return new Message.ClientReply(new Reply(
                            real.clientId(), real.requestSeq(), false, "999999".getBytes(StandardCharsets.UTF_8)));
                }
                return message;
            case EQUIVOCATING_PRIMARY:
                if (message instanceof Message.ExecuteBatch execute
                        && to % 2 == 1
                        && execute.batch().size() > 1) {
                    Batch batch = execute.batch();
                    Batch other = new Batch(
                            batch.seq(),
                            batch.timestampMillis(),
                            batch.seed(),
                            batch.requests().subList(0, batch.size() - 1));
                    return new Message.ExecuteBatch(execute.view(), execute.epoch(), other, execute.sequential());
                }
                return message;
            case EQUIVOCATING_VERIFIER:
                if (to % 2 == 0) {
                    return message;
                }
                if (message instanceof Message.Prepare prepare) {
                    return new Message.Prepare(prepare.view(), prepare.verifier(), wrong(prepare.token()));
                } else if (message instanceof Message.CommitVote vote) {
                    return new Message.CommitVote(vote.view(), vote.verifier(), wrong(vote.token()));
                } else if (message instanceof Message.VerifyResponse response) {
                    return new Message.VerifyResponse(response.view(), wrong(response.token()), response.sequential());
                }
                return message;
            case TAMPERING_EVIDENCE:
            case FORGING_EVIDENCE:
                return forgeries.tamper(message);
            default:
                return message;
        }
    }

    static Token wrong(Token token) {
        return Token.of(token.seq(), token.stateRoot(), token.replyDigest(), Digest.ZERO);
    }

    // ---- the simulated stage -----------------------------------------------------------------------

    private void enqueue(String what, long nanos, Runnable work) {
        operations.add(work);
        operationNames.add(what);
        operationNanos.add(nanos);
        if (!stageBusy) {
            runNext();
        }
    }

    private void runNext() {
        Runnable next = operations.poll();
        if (next == null) {
            stageBusy = false;
            return;
        }
        String what = operationNames.poll();
        long nanos = operationNanos.poll();
        stageBusy = true;
        sim.queue().after(nanos, name() + " stage " + what, () -> {
            if (!alive) {
                return;
            }
            try {
                next.run();
            } catch (RuntimeException e) {
                sim.fail(name() + ": the execution stage failed on " + what + ": " + e, e);
                return;
            }
            runNext();
        });
    }

    private void notifyMachine(String what, Runnable notification) {
        sim.queue().after(sim.protocolHopNanos(), name() + " " + what, () -> {
            if (alive) {
                notification.run();
            }
        });
    }

    private final class Bindings implements ExecutionActions {
        @Override
        public void send(int to, Message message) {
            if (message instanceof Message.ExecuteBatch batch && disk != null && batch.view() > disk.ledView) {
                // As the runtime does: a primary's batches of a view leave once its disk says it led the view.
                long view = batch.view();
                afterLed.computeIfAbsent(view, v -> new ArrayList<>())
                        .add(() -> QuorumSimProcess.this.send(to, message));
                if (view > ledRequested) {
                    ledRequested = view;
                    sim.queue().after(200_000L + sim.forceNanos(), name() + " led view " + view + " durable", () -> {
                        if (alive) {
                            disk.ledView = Math.max(disk.ledView, view);
                            var due = afterLed.headMap(disk.ledView, true);
                            due.values().forEach(tasks -> tasks.forEach(Runnable::run));
                            due.clear();
                        }
                    });
                }
                return;
            }
            QuorumSimProcess.this.send(to, message);
        }

        @Override
        public void execute(long epoch, Batch batch, boolean sequential) {
            enqueue("execute " + batch.seq(), sim.executeNanos(batch), () -> {
                long corruptionsBefore = app.corruptionsDone;
                boolean bug = batch.seq() == concurrencyBugAt && !sequential;
                if (bug) {
                    concurrencyBugAt = -1;
                    app.corruptNext = 1;
                    sim.onConcurrencyBug(QuorumSimProcess.this, batch.seq());
                }
                Executed executed = stage.execute(batch, sequential);
                if (bug) {
                    app.corruptNext = 0; // a batch without an add does not carry the bug to a later one
                }
                executions.tailMap(batch.seq(), true).clear();
                executions.put(batch.seq(), executed);
                if (correct()) {
                    sim.onProduced(executed.token());
                }
                if (app.corruptionsDone != corruptionsBefore) {
                    sim.log(name() + " executed batch " + batch.seq() + " wrongly (injected divergence)");
                }
                sim.log(name() + " executed batch " + batch.seq() + (sequential ? " sequentially" : "") + ": "
                        + executed.token());
                notifyMachine("onExecuted " + batch.seq(), () -> replica.onExecuted(epoch, executed, sim.wallMillis()));
            });
        }

        @Override
        public void rollbackTo(long seq) {
            enqueue("rollbackTo " + seq, 50_000L, () -> {
                if (seq >= stage.stableSeq() && seq <= stage.executedSeq()) {
                    stage.rollbackTo(seq);
                    executions.tailMap(seq, false).clear();
                } else {
                    sim.fail(name() + " was told to roll back to " + seq + ", outside " + stage.stableSeq() + ".."
                            + stage.executedSeq());
                }
            });
        }

        @Override
        public void markStable(long seq) {
            protocolStable = Math.max(protocolStable, seq);
            enqueue("markStable " + seq, 10_000L, () -> {
                if (seq <= stage.stableSeq() || seq > stage.executedSeq()) {
                    return;
                }
                for (long s = stage.stableSeq() + 1; s <= seq; s++) {
                    if (stage.tokenAt(s) != null && correct()) {
                        sim.onStable(
                                QuorumSimProcess.this,
                                s,
                                stage.tokenAt(s),
                                stage.state().rootAt(s));
                    }
                }
                stage.markStable(seq);
            });
        }

        @Override
        public void serveTransfer(int to, long baseSeq, Token agreed) {
            enqueue("serve transfer " + agreed.seq(), 300_000L, () -> {
                Message.ChainTransfer transfer =
                        io.eve.verify.quorum.QuorumRoles.transferToServe(stage, baseSeq, agreed);
                if (transfer != null) {
                    QuorumSimProcess.this.send(to, transfer);
                }
            });
        }

        @Override
        public void apply(Message.ChainTransfer transfer) {
            Token last = transfer.chain().get(transfer.chain().size() - 1);
            enqueue("apply " + last.seq(), 300_000L, () -> {
                ApplyResult result = stage.apply(transfer.delta(), last);
                if (result.applied() && correct()) {
                    sim.onInstalled(QuorumSimProcess.this, last);
                }
                if (result.applied()) {
                    executions.tailMap(transfer.delta().baseSeq(), false).clear();
                }
                sim.log(name() + " applied transfer " + transfer.delta().baseSeq() + " -> " + last.seq() + ": "
                        + (result.applied() ? "ok" : result.reason()));
                notifyMachine(
                        "onApplied " + last.seq(),
                        () -> replica.onApplied(transfer, result.applied(), result.reason()));
            });
        }

        @Override
        public void replyFromState(long clientId, long requestSeq) {
            enqueue("reply from state", 10_000L, () -> {
                Reply reply = stage.committedReply(clientId, requestSeq);
                if (reply != null) {
                    QuorumSimProcess.this.send((int) clientId, new Message.ClientReply(reply));
                }
            });
        }

        @Override
        public void release(Reply reply) {
            if (correct()) {
                sim.onRelease(QuorumSimProcess.this, reply);
            }
            QuorumSimProcess.this.send((int) reply.clientId(), new Message.ClientReply(reply));
        }

        @Override
        public void resend(Reply reply) {
            release(reply); // checked alike: a reply sent again must be one the verifiers committed
        }
    }
}
