package io.eve.verify.sim;

import io.eve.Reply;
import io.eve.batch.Batch;
import io.eve.execution.Executed;
import io.eve.execution.Token;
import io.eve.merkle.Digest;
import io.eve.protocol.Message;
import io.eve.transport.wire.FrameCodec;
import io.eve.verify.auth.Authenticator;
import io.eve.verify.auth.Envelopes;
import io.eve.verify.auth.MacKeys;
import io.eve.verify.quorum.ExtraProtectionConfig;
import io.eve.verify.quorum.QuorumConfig;
import io.eve.verify.sim.QuorumSimProcess.Byzantine;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * One simulated run of a quorum cluster (Eve §6.1) and its clients, driven by one seed: the crash
 * profile (u = 1, r = 0: three processes hosting an execution replica and a verifier each) or the bft
 * profile (u = r = 1: four verifiers, three of them with an execution replica), under crashes and
 * restarts, partitions, lossy links, divergent execution and, for bft, one Byzantine process. Then the
 * network heals and the run drains as in {@link Simulation}. Checked as the run goes: correct verifiers
 * never commit different tokens for a batch; correct execution replicas mark stable only the committed
 * token and release only replies of committed executions; clients accept only the reply the sequential
 * counter model gives. At the end: every correct replica holds exactly the acknowledged requests, and the
 * register clients' history of the shared keys is linearizable ({@link SharedRegisters}). The bft
 * profiles run over authenticated links with {@code MacEvidence} (docs/quorum.md, "Authenticators"); in
 * {@code bft-forge} the Byzantine process attacks them instead ({@link Forgeries}).
 *
 * <p>Deterministic per seed and single-threaded, like {@link Simulation}.
 */
final class QuorumSimulation implements World {
    static final long MS = 1_000_000L;
    private static final long VIEW_TIMEOUT_NANOS = 50 * MS;
    private static final long RETRANSMIT_NANOS = 15 * MS;
    private static final long CLIENT_TIMEOUT_NANOS = 80 * MS;
    private static final long LIVENESS_BOUND_NANOS = 12_000 * MS;
    /** Profiles {@code *-rejoin}: how long a restarted process may take to be back in service. */
    static final long REJOIN_BOUND_NANOS = 10 * VIEW_TIMEOUT_NANOS;

    private static final long WALL_EPOCH_MILLIS = 1_700_000_000_000L;
    private static final long MAX_EVENTS = 3_000_000L;
    /** crash-epm-stall: four times the mode's wait, under half the view timeout. */
    private static final long STALL_NANOS = 20 * MS;

    private final long seed;
    private final String profile;
    /** Profiles {@code crash-asymmetric} and {@code bft-asymmetric}: lossy, and links cut one way. */
    private final boolean asymmetric;
    /**
     * Profiles {@code crash-rejoin} and {@code bft-rejoin}: a healthy cluster (no Byzantine process, no lossy
     * link, no extra protection mode) whose only faults are crashes and restarts of a process that is not
     * the execution primary; every restarted process must be back in service within {@link
     * #REJOIN_BOUND_NANOS} and no verifier may ever change view (docs/quorum.md, "Rejoining").
     */
    private final boolean rejoin;

    /**
     * Profiles {@code crash-restart-all} and {@code bft-restart-all}: every process keeps a disk (docs/quorum.md,
     * "Durable replicas and verifiers") and restarts from it; besides cuts and slow links, the whole cluster
     * crashes at once and restarts, and single processes crash and restart from their disks (rejoining the
     * others' view). No Byzantine process, no lossy link, no extra protection mode; every invariant of the
     * other profiles holds, across the restarts.
     */
    private final boolean restartAll;
    /**
     * Profiles {@code crash-rejoin-failover} and {@code bft-rejoin-failover}: as {@code *-rejoin}, but in rounds
     * of three crashes, each once everything settled: two distinct processes that are not the execution
     * primary (each restarts without its state and rejoins the view, rule A), then the current execution
     * primary, whose verifier leads that view: the cluster must change view with the two rejoined verifiers
     * (docs/quorum.md, "Rejoining", when a rejoined verifier counts again).
     */
    private final boolean failover;
    /**
     * Profiles {@code crash-u2} and {@code crash-u2-rejoin}: five processes with {@code u = 2}, {@code r = 0}, and
     * two faults at a time: a second process may crash (and restart without its state), be cut off or execute
     * wrongly while the first is still faulty, so two restarted verifiers may rejoin at once and a joiner's
     * earlier life may send view changes that reach a verifier it never asked (docs/quorum.md, "Counting again
     * without a rejoin", {@code u >= 2}). {@code crash-u2-rejoin} keeps the cluster healthy otherwise, as
     * {@code *-rejoin}: only crashes of processes other than the execution primary, no view change. {@code bft-u2}
     * and {@code bft-u2-rejoin}: the same with {@code r = 1}, six verifiers of which the first five also execution
     * replicas; in {@code bft-u2} most seeds have a Byzantine process, which is one of the two faults throughout.
     */
    private final boolean u2;
    /**
     * Profile {@code crash-u2-amnesia}: as {@code crash-u2}, but the faults are mostly crashes (the execution
     * primary's included) with restarts without state, so two processes that voted together forget it at
     * once; cuts of a process and slow links make views change around them.
     */
    private final boolean amnesia;
    /** Profiles {@code crash-u2*}: until when each process counts as faulty after a cut or a restart. */
    private final long[] faultyUntil;
    /** Profile {@code crash-u2}: faults injected while another process was faulty. */
    private int secondFaults;
    /** Profiles {@code crash-u2-rejoin} and {@code crash-u2-amnesia}: two processes crashed at once. */
    private int doubleCrashes;
    /** Profiles {@code *-rejoin-failover}: crashes injected so far, which picks the next victim. */
    private int failoverCrashes;
    /** Profiles {@code *-rejoin-failover}: the first process crashed in the current round. */
    private int failoverFirst = -1;

    private final QuorumSimProcess.Disk[] disks;
    private int wholeClusterCrashes;

    private long slowestRejoinNanos = -1;
    private long viewChangesOfCrashed;

    private final boolean bft;
    private final boolean forging;
    /**
     * Profile {@code bft-forge-joiners} (decision 0036): {@code bft-forge-evidence}'s Byzantine verifier, and
     * crashes of correct processes other than the execution primary, which restart without their state and rejoin
     * with the Byzantine verifier among those that answer them and among the voters of the proofs they get. A
     * Byzantine process and a crashed one are two faults with {@code u = 1}: safety must hold, liveness only once
     * the crashed process is back.
     */
    private final boolean forgingJoiners;

    private long joinProofsForged;
    private long badlySigned;
    /** Correct verifiers that took part again after a restart from a commit, checked by {@link #onRecovered}. */
    private long recoveriesChecked;

    private final MacKeys keys;
    private final FrameCodec codec = new FrameCodec(16 << 20);
    /** The digests of every token a correct replica computed by executing a batch. */
    private final java.util.Set<Digest> producedByCorrect = new java.util.HashSet<>();
    /** The links of every correct incarnation, to count what they refused. */
    private final List<Envelopes> correctEnvelopes = new ArrayList<>();

    private long rejected;
    private final Simulation.Settings settings;
    private final SplittableRandom root;
    private final SplittableRandom faultRandom;
    private final SplittableRandom stageRandom;
    private final EventQueue queue = new EventQueue();
    private final EventLog log;
    private final SimNetwork network;
    private final QuorumConfig base;
    private final int[] processes;
    private final QuorumSimProcess[] running;
    private final int[] incarnations;
    private SimClients clients;
    private final Map<Long, Token> committedByVerifiers = new HashMap<>();
    /** The lowest start that correct verifiers announced for each view. */
    private final NavigableMap<Long, Long> viewStarts = new TreeMap<>();
    /** What correct primaries sent as each batch of each view, by "view:seq". */
    private final Map<String, String> batchesSent = new HashMap<>();
    /** The highest batch that correct verifiers announced committed in each view (or a later one). */
    private final NavigableMap<Long, Long> viewCommits = new TreeMap<>();

    private final Map<Long, Token> stableAtReplicas = new HashMap<>();
    private final int byzantineProcess;
    private final Byzantine behaviour;
    private String violation;
    private Throwable violationCause;
    private boolean healed;
    private long healAt;
    private long lastDisruption;
    private int crashes;
    private final boolean concurrencyBugs;
    private final boolean extraProtection;
    /** Profile {@code crash-epm-stall}: a replica's stage stalls in a good interval, then the bug comes. */
    private final boolean stalls;

    private int stallsInjected;
    private int bugsInjected;
    private int bugsManifested;
    private long extraProtectionRollbacks;
    private long extraProtectionExits;

    QuorumSimulation(long seed, String profile, Simulation.Settings settings) {
        this.seed = seed;
        this.profile = profile;
        this.bft = profile.startsWith("bft");
        this.forging = profile.startsWith("bft-forge");
        this.forgingJoiners = profile.equals("bft-forge-joiners");
        this.settings = settings;
        this.root = new SplittableRandom(seed);
        this.log = new EventLog(80, settings.verbose());
        boolean lossy = profile.endsWith("-lossy") || profile.endsWith("-asymmetric");
        this.asymmetric = profile.endsWith("-asymmetric");
        this.rejoin = profile.endsWith("-rejoin");
        this.restartAll = profile.endsWith("-restart-all");
        this.failover = profile.endsWith("-rejoin-failover");
        this.u2 = profile.startsWith("crash-u2") || profile.startsWith("bft-u2");
        this.amnesia = profile.equals("crash-u2-amnesia");
        // -unordered: messages between processes reordered and 5 % duplicated, beyond the FIFO contract.
        boolean unordered = profile.endsWith("-unordered");
        Faults faults = new Faults(
                lossy ? 0.05 : 0,
                unordered,
                unordered ? 0.05 : 0,
                true,
                true,
                true,
                false,
                true,
                false,
                false,
                false,
                false);
        this.network = new SimNetwork(this, root.split(), faults);
        this.faultRandom = root.split();
        this.stageRandom = root.split();
        this.processes = bft
                ? u2 ? new int[] {0, 1, 2, 3, 4, 5} : new int[] {0, 1, 2, 3}
                : u2 ? new int[] {0, 1, 2, 3, 4} : new int[] {0, 1, 2};
        this.faultyUntil = new long[processes.length];
        // bft-u2: u = 2, r = 1: six verifiers, the first five also execution replicas (nE = u + max(u, r) + 1).
        QuorumConfig config = bft && u2
                ? new QuorumConfig(
                        2, 1, Arrays.copyOf(processes, 5), processes, 0, 500_000_000L, 50_000_000L, 4, 64, 2_000_000L)
                : bft
                        ? QuorumConfig.bft(processes, 0)
                        : u2
                                ? new QuorumConfig(
                                        2, 0, processes, processes, 0, 500_000_000L, 50_000_000L, 4, 64, 2_000_000L)
                                : QuorumConfig.crash(processes, 0);
        this.concurrencyBugs = profile.startsWith("crash-epm");
        this.extraProtection = !profile.equals("crash-epm-off");
        this.stalls = profile.equals("crash-epm-stall");
        if (concurrencyBugs) {
            config = config.withExtraProtection(new ExtraProtectionConfig(extraProtection, 8, 5 * MS));
        }
        if (rejoin || restartAll || failover) {
            // With the mode on, a crashed replica's missing token is itself a rollback (Eve §6.3).
            config = config.withExtraProtection(ExtraProtectionConfig.OFF);
        }
        this.base = config.withTimeouts(VIEW_TIMEOUT_NANOS, RETRANSMIT_NANOS)
                .withBatching(1 + root.nextInt(4), 1 + root.nextInt(8), root.nextLong(3 * MS))
                .withPipelinedAgreement(settings.pipelinedAgreement());
        // Signed evidence, as the product's bft profile runs by default (auth.signed-evidence = on).
        this.keys = bft ? MacKeys.insecureForTests(seed, processes) : null;
        this.running = new QuorumSimProcess[processes.length];
        this.incarnations = new int[processes.length];
        int pick = bft ? root.nextInt(5) : 0;
        this.byzantineProcess = !rejoin && !restartAll && !failover && (forging || (bft && pick > 0))
                ? root.nextInt(processes.length)
                : -1;
        this.disks = new QuorumSimProcess.Disk[processes.length];
        if (restartAll) {
            for (int process : processes) {
                disks[process] = new QuorumSimProcess.Disk(this);
            }
        }
        Byzantine[] kinds = {
            Byzantine.WRONG_TOKENS,
            Byzantine.WRONG_REPLIES,
            Byzantine.EQUIVOCATING_PRIMARY,
            Byzantine.EQUIVOCATING_VERIFIER
        };
        Byzantine[] forgeries = {Byzantine.FORGING_ORIGIN, Byzantine.TAMPERING_EVIDENCE, Byzantine.REPLAYING};
        if (profile.equals("bft-forge-evidence") || forgingJoiners) {
            this.behaviour = Byzantine.FORGING_EVIDENCE;
        } else if (forging) {
            this.behaviour = forgeries[pick % forgeries.length];
        } else {
            this.behaviour = byzantineProcess < 0
                    ? Byzantine.NONE
                    : !hostsExecution(config, byzantineProcess) ? Byzantine.EQUIVOCATING_VERIFIER : kinds[pick - 1];
        }
    }

    private static boolean hostsExecution(QuorumConfig config, int process) {
        return Arrays.stream(config.executionReplicas()).anyMatch(replica -> replica == process);
    }

    Simulation.Outcome run() {
        log(String.format(
                "seed %d, profile %s: %s, pipeline %d, batch %d; byzantine %s %s; %s",
                seed,
                profile,
                base,
                base.pipelineDepth(),
                base.maxBatchSize(),
                byzantineProcess < 0 ? "none" : "process " + byzantineProcess,
                behaviour,
                network.describe()));
        for (int process : processes) {
            start(process, false);
        }
        clients = new SimClients(this, settings, base.executionReplicas(), root, base.responseQuorum());
        clients.start();
        scheduleFault();
        queue.at(settings.faultPhaseNanos(), "heal", this::heal);
        long events = 0;
        while (true) {
            EventQueue.Event event = queue.next();
            if (event == null) {
                fail("the simulation ran out of events");
            } else {
                events++;
                log.add(event.at(), event.what());
                try {
                    event.action().run();
                } catch (RuntimeException e) {
                    fail("unexpected exception in '" + event.what() + "': " + e, e);
                }
            }
            if (violation == null && healed && now() - healAt > LIVENESS_BOUND_NANOS) {
                fail("liveness: not drained " + LIVENESS_BOUND_NANOS / MS + " ms after the faults stopped: "
                        + report());
            }
            if (violation == null && events > MAX_EVENTS) {
                fail("more than " + MAX_EVENTS + " events: " + report());
            }
            if (violation == null && healed && drained()) {
                checkFinalState();
                if (rejoin && viewChangesStarted() > 0) {
                    fail("rejoin: " + viewChangesStarted() + " view changes on a healthy cluster: " + report());
                }
            }
            if (violation != null) {
                throw new SimulationFailure(seed, profile, settings, violation, log.tail(), violationCause);
            }
            if (healed && drained()) {
                return new Simulation.Outcome(
                        seed,
                        events,
                        now() / MS,
                        clients.acknowledged(),
                        clients.checked(),
                        clients.abandoned(),
                        crashes,
                        0);
            }
        }
    }

    // ---- World -----------------------------------------------------------------------------------

    @Override
    public long now() {
        return queue.now();
    }

    long wallMillis() {
        return WALL_EPOCH_MILLIS + now() / MS;
    }

    @Override
    public EventQueue queue() {
        return queue;
    }

    @Override
    public SimNetwork network() {
        return network;
    }

    @Override
    public void log(String line) {
        log.add(now(), line);
    }

    @Override
    public void fail(String what) {
        fail(what, null);
    }

    void fail(String what, Throwable cause) {
        if (violation == null) {
            violation = what;
            violationCause = cause;
        }
    }

    @Override
    public boolean isReplica(int id) {
        return id >= 0 && id < processes.length;
    }

    @Override
    public void deliver(int from, int to, Message message) {
        if (isReplica(to)) {
            QuorumSimProcess process = running[to];
            if (process == null || !process.alive()) {
                log("lost (process " + to + " is down) " + from + "->" + to + " " + message);
            } else {
                process.onMessage(from, message);
            }
        } else {
            clients.byId(to).onMessage(from, message);
        }
    }

    @Override
    public long failureTimeoutNanos() {
        return VIEW_TIMEOUT_NANOS;
    }

    @Override
    public long clientTimeoutNanos() {
        return CLIENT_TIMEOUT_NANOS;
    }

    @Override
    public void onCorruptedToken() {}

    long executeNanos(Batch batch) {
        return 100_000L + batch.size() * (20_000L + stageRandom.nextLong(180_000L));
    }

    long protocolHopNanos() {
        return stageRandom.nextLong(20_000L);
    }

    // ---- invariants --------------------------------------------------------------------------------

    /** A correct verifier committed {@code token} (it tells the execution replicas so). */
    void onVerifierCommit(QuorumSimProcess process, Token token) {
        if (token.seq() == 0) {
            return;
        }
        Token first = committedByVerifiers.putIfAbsent(token.seq(), token);
        if (first != null && !first.matches(token)) {
            fail("correct verifiers committed different tokens for batch " + token.seq() + ": " + first + " and "
                    + token + " (" + process.name() + ")");
        }
    }

    /**
     * A correct verifier that restarted without its state takes part again (it adopted the others' view from
     * their proofs, or entered a new view) holding {@code committed} as its last commit: a token a correct
     * replica produced, and the one correct verifiers committed for that batch (decision 0036: no member can
     * make it adopt a proof it invented). Whether a correct replica produced it is checked in the forging
     * profiles, as for {@link #onInstalled}.
     */
    void onRecovered(QuorumSimProcess process, Token committed) {
        if (committed == null || committed.seq() == 0) {
            return;
        }
        if (forging && !producedByCorrect.contains(committed.digest())) {
            fail(process.name() + " took part again from " + committed + ", a token no correct replica produced");
        }
        onVerifierCommit(process, committed);
        recoveriesChecked++;
    }

    /**
     * docs/quorum.md, "View change": a view starts at or above every batch committed in an earlier view. A
     * correct verifier's {@code VerifyResponse} announces a view's start (sequential) or a commit; a commit
     * answered late carries the verifier's current view, later than the commit's own, which only weakens
     * the check.
     */
    void onVerifierResponse(QuorumSimProcess process, Message.VerifyResponse response) {
        long view = response.view();
        long seq = response.token().seq();
        if (response.sequential()) {
            viewStarts.merge(view, seq, Math::min);
            for (Map.Entry<Long, Long> commit : viewCommits.headMap(view, false).entrySet()) {
                if (commit.getValue() > seq) {
                    fail(process.name() + " announces that view " + view + " starts from batch " + seq
                            + ", below batch " + commit.getValue() + " committed in view " + commit.getKey());
                }
            }
        } else {
            viewCommits.merge(view, seq, Math::max);
            for (Map.Entry<Long, Long> start : viewStarts.tailMap(view, false).entrySet()) {
                if (start.getValue() < seq) {
                    fail(process.name() + " announces batch " + seq + " committed in view " + view + ", above the"
                            + " start " + start.getValue() + " of the later view " + start.getKey());
                }
            }
        }
    }

    /**
     * A correct primary numbers each batch of its view once: a second, different batch under a number it
     * already used (a primary that restarted and took an old start for a new view did so) is a bug even when
     * every other replica ignores it.
     */
    void onExecuteBatch(QuorumSimProcess process, Message.ExecuteBatch message) {
        Batch batch = message.batch();
        StringBuilder content =
                new StringBuilder().append(batch.timestampMillis()).append('/').append(batch.seed());
        for (io.eve.Request request : batch.requests()) {
            content.append(' ').append(request.clientId()).append('#').append(request.requestSeq());
        }
        String key = message.view() + ":" + batch.seq();
        String first = batchesSent.putIfAbsent(key, content.toString());
        if (first != null && !first.equals(content.toString())) {
            fail(process.name() + " numbers batch " + batch.seq() + " of view " + message.view() + " again: [" + content
                    + "] after [" + first + "]");
        }
    }

    /** A correct execution replica executed a batch and computed {@code token}. */
    void onProduced(Token token) {
        producedByCorrect.add(token.digest());
    }

    /**
     * Issue 20's invariant: a correct replica installs by transfer only a state that a correct replica
     * produced by executing (the forging profiles; elsewhere a correct process's disk may hold a token its
     * earlier incarnation produced before this simulation recorded it).
     */
    void onInstalled(QuorumSimProcess process, Token token) {
        if (forging && token.seq() > 0 && !producedByCorrect.contains(token.digest())) {
            fail(process.name() + " installs a state transfer to " + token + ", which no correct replica produced");
        }
    }

    /** A correct execution replica marks a version stable: it must be the committed token. */
    void onStable(QuorumSimProcess process, long seq, Token token, Digest root) {
        if (forging && seq > 0 && !producedByCorrect.contains(token.digest())) {
            fail(process.name() + " commits batch " + seq + " as " + token + ", which no correct replica produced");
        }
        if (!token.stateRoot().equals(root)) {
            fail(process.name() + " marks batch " + seq + " stable with root " + root + " but token " + token);
        }
        Token first = stableAtReplicas.putIfAbsent(seq, token);
        if (first != null && !first.matches(token)) {
            fail("correct replicas committed different tokens for batch " + seq + ": " + first + " and " + token + " ("
                    + process.name() + ")");
        }
        Token agreed = committedByVerifiers.get(seq);
        if (agreed != null && !agreed.matches(token)) {
            fail(process.name() + " marks batch " + seq + " stable with " + token + ", the verifiers committed "
                    + agreed);
        }
    }

    /**
     * A correct replica releases a reply: from an execution of its own that the verifiers committed. A
     * request retried after it was executed is answered again from the reply cache in a later batch, so
     * several executions may hold the reply; one committed is enough.
     */
    void onRelease(QuorumSimProcess process, Reply reply) {
        List<Executed> executions = process.executionsAnswering(reply);
        if (executions.isEmpty()) {
            fail(process.name() + " releases " + reply + " which none of its executions produced");
            return;
        }
        for (Executed executed : executions) {
            if (committed(process, executed)) {
                return;
            }
        }
        Executed latest = executions.get(0);
        fail(process.name() + " releases " + reply + " of batch " + latest.seq() + " executed as " + latest.token()
                + ", but the verifiers committed " + committedByVerifiers.get(latest.seq())
                + (executions.size() > 1 ? " (nor any of its earlier executions holding it)" : ""));
    }

    /**
     * Whether the verifiers committed {@code executed}: its token, or a later token that this process's own
     * later executions chain to it (a certificate for batch n commits every batch its token chains to).
     */
    private boolean committed(QuorumSimProcess process, Executed executed) {
        Token token = executed.token();
        while (true) {
            Token agreed = committedByVerifiers.get(token.seq());
            if (agreed != null) {
                return agreed.matches(token);
            }
            Executed next = process.execution(token.seq() + 1);
            if (next == null || !next.token().previous().equals(token.digest())) {
                return false;
            }
            token = next.token();
        }
    }

    /**
     * The authenticated link of {@code process} dropped a message. Only a process that attacks the
     * authenticators sends such messages: any other rejection is a bug in sealing or opening.
     */
    void onRejected(QuorumSimProcess process, int from, Envelopes.Rejection why, Message message) {
        rejected++;
        log(process.name() + " dropped " + why + " from " + from + ": " + message);
        if (!Forgeries.attacksAuthenticators(behaviour)) {
            fail(process.name() + " dropped a message from " + from + " (" + why + ") though nobody forges: "
                    + message);
        }
    }

    /** Messages the authenticated links dropped in this run. */
    long rejected() {
        return rejected;
    }

    Byzantine behaviour() {
        return behaviour;
    }

    /**
     * Pieces of signed evidence the correct processes refused because their signature did not verify
     * against the key of the verifier they name (docs/quorum.md, "Signed evidence").
     */
    long badSignatures() {
        long bad = 0;
        for (Envelopes envelopes : correctEnvelopes) {
            if (envelopes.evidence() instanceof io.eve.verify.auth.SignedEvidence signed) {
                bad += signed.badSignatures();
            }
        }
        return bad;
    }

    /** The codec of every process's frames. */
    FrameCodec codec() {
        return codec;
    }

    // ---- processes and faults --------------------------------------------------------------------

    private void start(int process, boolean restarted) {
        QuorumConfig config = base.withSelf(process);
        SplittableRandom seeds = root.split();
        Byzantine lies = process == byzantineProcess ? behaviour : Byzantine.NONE;
        Envelopes envelopes = keys == null ? null : new Envelopes(new Authenticator(keys, process), codec);
        if (envelopes != null && lies == Byzantine.NONE) {
            correctEnvelopes.add(envelopes);
        }
        Forgeries forgeries = Forgeries.attacksAuthenticators(lies)
                ? new Forgeries(this, process, processes, envelopes, codec, lies)
                : null;
        QuorumSimProcess started = new QuorumSimProcess(
                this,
                config,
                ++incarnations[process],
                restarted,
                lies,
                seeds::nextLong,
                envelopes,
                forgeries,
                disks[process]);
        started.app.staleGets = settings.staleGets();
        running[process] = started;
        log("start " + started.name()
                + (restarted
                        ? disks[process] != null ? " (restarted from its disk)" : " (restarted without its state)"
                        : "")
                + " " + lies);
        started.start();
        if (rejoin && restarted) {
            awaitInService(started, now());
        }
    }

    /** Profiles {@code *-rejoin}: checks every millisecond that {@code process} is back in service. */
    private void awaitInService(QuorumSimProcess process, long restartedAt) {
        queue.after(MS, "is " + process.name() + " back in service", () -> {
            if (process != running[process.id] || !process.alive()) {
                return;
            }
            long waited = now() - restartedAt;
            if (inService(process)) {
                slowestRejoinNanos = Math.max(slowestRejoinNanos, waited);
                log(process.name() + " is back in service after " + waited / MS + " ms");
            } else if (waited > REJOIN_BOUND_NANOS) {
                fail("rejoin: " + process.name() + " not back in service " + REJOIN_BOUND_NANOS / MS
                        + " ms after its restart: " + report());
            } else {
                awaitInService(process, restartedAt);
            }
        });
    }

    /** Neither role still joins: the verifier takes part in the view, the replica caught up. */
    private static boolean inService(QuorumSimProcess process) {
        return (process.verifier == null || !process.verifier.recovering())
                && (process.replica == null || (!process.replica.joining() && !process.replica.transferring()));
    }

    /** Profiles {@code *-rejoin}: the longest a restarted process took to be back in service, or -1. */
    long slowestRejoinNanos() {
        return slowestRejoinNanos;
    }

    /** View changes the verifiers started in this run, those of crashed incarnations included. */
    long viewChangesStarted() {
        long started = viewChangesOfCrashed;
        for (QuorumSimProcess process : running) {
            started += process.verifier.viewChangesStarted();
        }
        return started;
    }

    int crashes() {
        return crashes;
    }

    private void scheduleFault() {
        queue.after(10 * MS + faultRandom.nextLong(120 * MS), "fault", () -> {
            if (!healed) {
                injectFault();
                scheduleFault();
            }
        });
    }

    private void injectFault() {
        int kind = faultRandom.nextInt(6);
        if (u2) {
            injectFaultWithinBudget(kind);
            return;
        }
        if (restartAll && kind <= 2) {
            if (settled() && kind <= 1) {
                crashAll();
            } else if (settled()) {
                crash(faultRandom.nextInt(processes.length));
            }
            return;
        }
        if (failover) {
            if (settled()) {
                crash(nextFailoverVictim());
            }
            return;
        }
        if (rejoin) {
            if (settled()) {
                // Any process but the execution primary, whose crash needs a view change.
                crash(1 + faultRandom.nextInt(processes.length - 1));
            }
            return;
        }
        if (concurrencyBugs && bugPending()) {
            return;
        }
        if (stalls) {
            stallThenInjectBug();
            return;
        }
        if (concurrencyBugs && kind == 1) {
            injectConcurrencyBug();
        } else if (forgingJoiners && kind == 0) {
            if (everyoneBack()) {
                crash(correctVictimOtherThanThePrimary());
            }
        } else if (behaviour == Byzantine.FORGING_EVIDENCE && kind <= 2) {
            if (now() > lastDisruption) {
                // Views must change for the Byzantine verifier's forged view changes to matter: cut the
                // execution primary off for longer than a view timeout.
                long view = 0;
                for (QuorumSimProcess process : running) {
                    if (process != null && process.verifier != null && process.correct()) {
                        view = Math.max(view, process.verifier.view());
                    }
                }
                int primary = base.executionPrimary(view);
                long nanos = 2 * VIEW_TIMEOUT_NANOS + faultRandom.nextLong(VIEW_TIMEOUT_NANOS);
                log("fault: cut the execution primary " + primary + " of view " + view + " off for " + nanos / MS
                        + " ms");
                lastDisruption = now() + nanos;
                for (int other : processes) {
                    if (other != primary) {
                        network.cut(primary, other, nanos);
                    }
                }
            }
        } else if (kind == 0 && settled()) {
            crash(bft && byzantineProcess >= 0 ? byzantineProcess : faultRandom.nextInt(processes.length));
        } else if (kind == 1 && settled()) {
            int target = bft && byzantineProcess >= 0 ? byzantineProcess : faultRandom.nextInt(3);
            QuorumSimProcess process = running[target];
            if (process.replica != null) {
                process.app.corruptNext = 1 + faultRandom.nextInt(2);
                lastDisruption = now();
                log("fault: " + process.name() + " will execute its next " + process.app.corruptNext + " adds wrongly");
            }
        } else if (kind == 2) {
            int cut = faultRandom.nextInt(processes.length);
            long nanos = MS + faultRandom.nextLong(3 * VIEW_TIMEOUT_NANOS);
            lastDisruption = now() + nanos;
            cutOff(cut, nanos);
        } else if (kind == 3 && asymmetric) {
            int from = faultRandom.nextInt(processes.length);
            int to = faultRandom.nextInt(processes.length);
            long nanos = MS + faultRandom.nextLong(2 * VIEW_TIMEOUT_NANOS);
            if (from != to) {
                log("fault: cut the link from " + from + " to " + to + " (one way) for " + nanos / MS + " ms");
                network.cutOneWay(from, to, nanos);
            }
        } else if (kind == 3) {
            int a = faultRandom.nextInt(processes.length);
            int b = faultRandom.nextInt(processes.length);
            long nanos = MS + faultRandom.nextLong(2 * VIEW_TIMEOUT_NANOS);
            if (a != b) {
                log("fault: cut the link " + a + "-" + b + " for " + nanos / MS + " ms");
                network.cut(a, b, nanos);
            }
        } else if (kind == 4) {
            int client = Simulation.CLIENT_BASE + faultRandom.nextInt(clients.size());
            cutClient(client, faultRandom.nextInt(processes.length));
        } else if (kind == 5) {
            slowLinks();
        }
    }

    /** Cuts {@code process} off from every other process for {@code nanos}. */
    private void cutOff(int process, long nanos) {
        log("fault: cut process " + process + " off for " + nanos / MS + " ms");
        for (int other : processes) {
            if (other != process) {
                network.cut(process, other, nanos);
            }
        }
    }

    /** Cuts {@code client} from {@code process} for 10 to 210 ms. */
    private void cutClient(int client, int process) {
        long nanos = 10 * MS + faultRandom.nextLong(200 * MS);
        log("fault: cut client " + client + " from process " + process + " for " + nanos / MS + " ms");
        network.cut(client, process, nanos);
    }

    /** Slows every link down for 10 to 110 ms. */
    private void slowLinks() {
        long nanos = 10 * MS + faultRandom.nextLong(100 * MS);
        log("fault: slow links for " + nanos / MS + " ms");
        network.slowDown(nanos);
    }

    /**
     * Profiles {@code crash-u2*}: a fault of {@code kind} on a process that is not faulty yet, if fewer than
     * {@code u} are; {@code crash-u2-rejoin} only crashes processes other than the execution primary.
     */
    private void injectFaultWithinBudget(int kind) {
        List<Integer> healthy = new ArrayList<>();
        int primary = base.executionPrimary(currentView());
        for (int process : processes) {
            if (!faulty(process) && !(rejoin && process == primary)) {
                healthy.add(process);
            }
        }
        int faulty = 0;
        for (int process : processes) {
            faulty += faulty(process) ? 1 : 0;
        }
        if (faulty >= base.u() || healthy.isEmpty()) {
            return;
        }
        int target = healthy.get(faultRandom.nextInt(healthy.size()));
        if (rejoin) {
            if (faulty > 0 || !settled()) {
                return;
            }
            if (kind % 2 == 0 || healthy.size() < 2) {
                crash(target);
                return;
            }
            // Two at once, restarting within a millisecond of each other: both rejoin together, each
            // answering the other's query as a verifier that is itself recovering.
            int second;
            do {
                second = healthy.get(faultRandom.nextInt(healthy.size()));
            } while (second == target);
            long downFor = 5 * MS + faultRandom.nextLong(4 * VIEW_TIMEOUT_NANOS);
            doubleCrashes++;
            crash(target, downFor);
            crash(second, downFor + faultRandom.nextLong(MS));
            return;
        }
        if (faulty > 0) {
            secondFaults++;
        }
        if (amnesia && kind <= 1) {
            crash(target);
            return;
        }
        if (amnesia && kind <= 3) {
            if (faulty == 0 && healthy.size() >= 2) {
                // Two at once, each restarting on its own: the two may have voted together just before.
                int second;
                do {
                    second = healthy.get(faultRandom.nextInt(healthy.size()));
                } while (second == target);
                doubleCrashes++;
                crash(target);
                crash(second);
            } else {
                crash(target);
            }
            return;
        }
        if (kind == 0) {
            crash(target);
        } else if (kind == 1 && running[target].replica != null && !bft) {
            // (bft-u2: the Byzantine process is the one commission fault r = 1 allows.)
            running[target].app.corruptNext = 1 + faultRandom.nextInt(2);
            log("fault: " + running[target].name() + " will execute its next " + running[target].app.corruptNext
                    + " adds wrongly");
        } else if (kind == 2 || kind == 3) {
            long nanos = MS + faultRandom.nextLong(3 * VIEW_TIMEOUT_NANOS);
            faultyUntil[target] = Math.max(faultyUntil[target], now() + nanos + VIEW_TIMEOUT_NANOS);
            int other = processes[faultRandom.nextInt(processes.length)];
            if (kind == 3 && other != target) {
                log("fault: cut the link " + target + "-" + other + " for " + nanos / MS + " ms");
                network.cut(target, other, nanos);
                return;
            }
            cutOff(target, nanos);
        } else if (kind == 4) {
            cutClient(Simulation.CLIENT_BASE + faultRandom.nextInt(clients.size()), target);
        } else if (kind == 5) {
            slowLinks();
        }
    }

    /**
     * Profiles {@code crash-u2*} and {@code bft-u2*}: process {@code id} counts against the fault budget: it is
     * the Byzantine one, down, not back in service after a restart, back without its view changes counting yet
     * (rule R), about to execute wrongly, or within a view timeout after a cut of it ends (six after a restart,
     * while its earlier incarnation's messages may still arrive).
     */
    private boolean faulty(int id) {
        QuorumSimProcess process = running[id];
        return id == byzantineProcess
                || !process.alive()
                || !inService(process)
                || !process.verifier.countsInViewChanges()
                || process.app.corruptNext > 0
                || now() < faultyUntil[id];
    }

    /**
     * crash-epm: two of the three replicas will execute one batch identically wrongly when they run it in
     * parallel, a correlated concurrency bug the normal quorum of two would commit. Injected only in a good
     * interval (everything settled and, with the mode on, every verifier in extra protection mode), where
     * Eve §6.3 promises to mask it; no other fault comes until it has fired.
     */
    private void injectConcurrencyBug() {
        if (!settled()) {
            return;
        }
        for (QuorumSimProcess process : running) {
            if (extraProtection && !process.verifier.extraProtection()) {
                return;
            }
        }
        injectConcurrencyBugNow();
    }

    /**
     * crash-epm-stall: in a good interval, the stage of one replica stalls for {@link #STALL_NANOS} (a
     * scheduler or collector pause: longer than the mode's wait, well within the view timeout), so a batch
     * and the probe of the view its rollback starts lack that replica's token for a while. Right after the
     * stall the correlated bug comes, whatever the verifiers' mode: a slow replica is not a reason to stop
     * masking, so every bug must still be masked.
     */
    private void stallThenInjectBug() {
        if (!settled()) {
            return;
        }
        for (QuorumSimProcess process : running) {
            if (!process.verifier.extraProtection()) {
                return;
            }
        }
        QuorumSimProcess slow = running[faultRandom.nextInt(processes.length)];
        slow.stall(STALL_NANOS);
        stallsInjected++;
        lastDisruption = now() + STALL_NANOS;
        log("fault: the stage of " + slow.name() + " stalls for " + STALL_NANOS / MS + " ms");
        queue.after(STALL_NANOS + 2 * MS, "inject a bug after the stall", this::injectConcurrencyBugNow);
    }

    private void injectConcurrencyBugNow() {
        long executed = 0;
        for (QuorumSimProcess process : running) {
            executed = Math.max(executed, process.stage.executedSeq());
        }
        long at = executed + base.pipelineDepth() + 1;
        int spared = faultRandom.nextInt(processes.length);
        for (QuorumSimProcess process : running) {
            if (process.id != spared) {
                process.concurrencyBugAt = at;
            }
        }
        bugsInjected++;
        lastDisruption = now();
        log("fault: every process but " + spared + " will execute batch " + at + " wrongly if it runs in parallel");
    }

    private boolean bugPending() {
        for (QuorumSimProcess process : running) {
            if (process.alive() && process.concurrencyBugAt >= 0) {
                return true;
            }
        }
        return false;
    }

    void onConcurrencyBug(QuorumSimProcess process, long seq) {
        bugsManifested++;
        log(process.name() + " hits the concurrency bug in batch " + seq);
    }

    /** crash-epm: bugs injected, executions that hit them, and the verifiers' rollbacks and exits. */
    String extraProtectionReport() {
        return bugsInjected + " bugs, " + bugsManifested + " executions hit one, " + extraProtectionRollbacks()
                + " extra protection rollbacks, " + extraProtectionExits() + " exits";
    }

    int bugsInjected() {
        return bugsInjected;
    }

    int stallsInjected() {
        return stallsInjected;
    }

    long extraProtectionRollbacks() {
        long rollbacks = extraProtectionRollbacks;
        for (QuorumSimProcess process : running) {
            rollbacks += process.verifier.extraProtectionRollbacks();
        }
        return rollbacks;
    }

    long extraProtectionExits() {
        long exits = extraProtectionExits;
        for (QuorumSimProcess process : running) {
            exits += process.verifier.extraProtectionExits();
        }
        return exits;
    }

    /**
     * No process is down, restarting, catching up or recovering, and the last disruption is a while ago:
     * only then may a process fail again, so that at most u are faulty at any time (beyond that the
     * protocol promises nothing).
     */
    private boolean settled() {
        for (QuorumSimProcess process : running) {
            if (!process.alive()
                    || (process.replica != null && (process.replica.joining() || process.replica.transferring()))
                    || (process.verifier != null && (process.verifier.recovering() || process.verifier.changingView()))
                    || process.app.corruptNext > 0) {
                return false;
            }
        }
        return now() - lastDisruption > 6 * VIEW_TIMEOUT_NANOS;
    }

    /**
     * Profiles {@code *-rejoin-failover}: in each round of three, two distinct processes other than the
     * execution primary of the current view, then that primary.
     */
    private int nextFailoverVictim() {
        int[] replicas = base.executionReplicas();
        int primary = replicas[(int) (currentView() % replicas.length)];
        int step = failoverCrashes++ % 3;
        if (step == 2) {
            return primary;
        }
        int victim;
        do {
            victim = faultRandom.nextInt(processes.length);
        } while (victim == primary || (step == 1 && victim == failoverFirst));
        failoverFirst = victim;
        return victim;
    }

    /** The highest view a running verifier is in. */
    private long currentView() {
        long view = 0;
        for (QuorumSimProcess process : running) {
            view = Math.max(view, process.verifier.view());
        }
        return view;
    }

    /** Profiles {@code *-restart-all}: every process crashes at once; each restarts from its disk. */
    private void crashAll() {
        wholeClusterCrashes++;
        long downFor = 5 * MS + faultRandom.nextLong(4 * VIEW_TIMEOUT_NANOS);
        log("fault: crash every process at once; they restart from their disks within " + downFor / MS + " ms");
        for (int process : processes) {
            kill(running[process]);
            long at = downFor - faultRandom.nextLong(5 * MS);
            queue.after(at, "restart process " + process, () -> start(process, true));
        }
        lastDisruption = now() + downFor;
    }

    /** Profile {@code crash-u2}: faults injected while another process was faulty, in this run. */
    int secondFaults() {
        return secondFaults;
    }

    /** Profiles {@code crash-u2-rejoin} and {@code crash-u2-amnesia}: pairs crashed at once, in this run. */
    int doubleCrashes() {
        return doubleCrashes;
    }

    /** Crashes of the whole cluster in this run. */
    int wholeClusterCrashes() {
        return wholeClusterCrashes;
    }

    /** Forces of the verifiers' records in this run (profiles {@code *-restart-all}). */
    long verifierForces() {
        long forces = 0;
        for (QuorumSimProcess.Disk disk : disks) {
            forces += disk == null ? 0 : disk.forces();
        }
        return forces;
    }

    long forceNanos() {
        return stageRandom.nextLong(800_000L);
    }

    private void kill(QuorumSimProcess victim) {
        if (victim.verifier != null) {
            extraProtectionRollbacks += victim.verifier.extraProtectionRollbacks();
            extraProtectionExits += victim.verifier.extraProtectionExits();
            viewChangesOfCrashed += victim.verifier.viewChangesStarted();
        }
        victim.crash();
        if (disks[victim.id] != null) {
            disks[victim.id].keep(victim);
        }
        crashes++;
    }

    /**
     * {@code bft-forge-joiners}: every process is up and none is still rejoining or catching up (cuts of the primary
     * may go on: a joiner must rejoin while views change as well).
     */
    private boolean everyoneBack() {
        for (QuorumSimProcess process : running) {
            if (!process.alive()
                    || (process.replica != null && (process.replica.joining() || process.replica.transferring()))
                    || (process.verifier != null && process.verifier.recovering())) {
                return false;
            }
        }
        return true;
    }

    /** {@code bft-forge-joiners}: a correct process whose crash needs no view change (not the execution primary). */
    private int correctVictimOtherThanThePrimary() {
        long view = 0;
        for (QuorumSimProcess process : running) {
            if (process != null && process.verifier != null && process.correct()) {
                view = Math.max(view, process.verifier.view());
            }
        }
        int primary = base.executionPrimary(view);
        int[] candidates = java.util.Arrays.stream(processes)
                .filter(process -> process != primary && process != byzantineProcess)
                .toArray();
        return candidates[faultRandom.nextInt(candidates.length)];
    }

    /** {@code bft-forge-evidence}: own pieces the Byzantine verifier sent with a right MAC and a wrong signature. */
    void onBadlySignedEvidence() {
        badlySigned++;
    }

    long badlySigned() {
        return badlySigned;
    }

    /**
     * Certificates the correct verifiers running now made without checking a signature (docs/quorum.md, "Signed
     * evidence", rule 2).
     */
    long uncheckedCertificates() {
        long unchecked = 0;
        for (QuorumSimProcess process : running) {
            if (process != null && process.correct() && process.verifier != null) {
                unchecked += process.uncheckedCertificates();
            }
        }
        return unchecked;
    }

    /** {@code bft-forge-joiners}: forged commit proofs the Byzantine verifier sent joiners. */
    void onJoinProofForged() {
        joinProofsForged++;
    }

    long joinProofsForged() {
        return joinProofsForged;
    }

    long recoveriesChecked() {
        return recoveriesChecked;
    }

    private void crash(int process) {
        if (restartAll) {
            QuorumSimProcess victim = running[process];
            kill(victim);
            long downFor = 5 * MS + faultRandom.nextLong(4 * VIEW_TIMEOUT_NANOS);
            lastDisruption = now() + downFor;
            log("fault: crash " + victim.name() + ", restart from its disk in " + downFor / MS + " ms");
            queue.after(downFor, "restart process " + process, () -> start(process, true));
            return;
        }
        crash(process, 5 * MS + faultRandom.nextLong(4 * VIEW_TIMEOUT_NANOS));
    }

    /** Crashes {@code process}, which restarts without its state after {@code downFor}. */
    private void crash(int process, long downFor) {
        QuorumSimProcess victim = running[process];
        if (victim.verifier != null) {
            extraProtectionRollbacks += victim.verifier.extraProtectionRollbacks();
            extraProtectionExits += victim.verifier.extraProtectionExits();
        }
        viewChangesOfCrashed += victim.verifier.viewChangesStarted();
        victim.crash();
        crashes++;
        lastDisruption = Math.max(lastDisruption, now() + downFor);
        faultyUntil[process] = now() + downFor + 6 * VIEW_TIMEOUT_NANOS;
        log("fault: crash " + victim.name() + ", restart in " + downFor / MS + " ms");
        queue.after(downFor, "restart process " + process, () -> start(process, true));
    }

    private void heal() {
        healed = true;
        healAt = now();
        network.heal();
        log("heal: no more faults; clients finish and send two more requests each");
        clients.onHeal(2);
    }

    // ---- the end of a run --------------------------------------------------------------------------

    private List<QuorumSimProcess> correctReplicas() {
        List<QuorumSimProcess> correct = new ArrayList<>();
        for (QuorumSimProcess process : running) {
            if (process.replica != null && process.correct()) {
                correct.add(process);
            }
        }
        return correct;
    }

    private boolean drained() {
        if (!clients.done()) {
            return false;
        }
        long committed = -1;
        for (QuorumSimProcess process : correctReplicas()) {
            if (!process.alive()
                    || process.replica.joining()
                    || process.replica.transferring()
                    || !process.stageIdle()
                    || process.stage.stableSeq() != process.stage.executedSeq()) {
                return false;
            }
            if (committed >= 0 && process.stage.stableSeq() != committed) {
                return false;
            }
            committed = process.stage.stableSeq();
        }
        return true;
    }

    private String report() {
        StringBuilder report = new StringBuilder(clients.pending());
        for (QuorumSimProcess process : running) {
            report.append(process.name()).append(process.alive() ? "" : " (down)");
            if (process.replica != null) {
                report.append(String.format(
                        " replica view %d primary %s committed %d joining %s transferring %s, stage %d/%d;",
                        process.replica.view(),
                        process.replica.isPrimary(),
                        process.replica.committed(),
                        process.replica.joining(),
                        process.replica.transferring(),
                        process.stage.stableSeq(),
                        process.stage.executedSeq()));
            }
            if (process.verifier != null) {
                report.append(String.format(
                        " verifier view %d changing %s recovering %s committed %d;",
                        process.verifier.view(),
                        process.verifier.changingView(),
                        process.verifier.recovering(),
                        process.verifier.committedSeq()));
            }
            report.append(' ');
        }
        return report.toString();
    }

    private void checkFinalState() {
        List<QuorumSimProcess> correct = correctReplicas();
        for (QuorumSimProcess process : correct) {
            String mismatch = clients.counterMismatch(process.name(), process.app::counter);
            if (mismatch != null) {
                fail(mismatch);
            }
        }
        List<String> violations = clients.linearizabilityViolations();
        if (!violations.isEmpty()) {
            fail("linearizability: " + String.join("\n", violations));
        }
        QuorumSimProcess first = correct.get(0);
        long seq = first.stage.stableSeq();
        for (QuorumSimProcess process : correct) {
            if (!process.stage.state().rootAt(seq).equals(first.stage.state().rootAt(seq))) {
                fail("the replicas' final states differ at batch " + seq + ": " + Arrays.toString(processes));
            }
        }
    }
}
