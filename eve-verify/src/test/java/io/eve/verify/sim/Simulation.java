package io.eve.verify.sim;

import io.eve.batch.Batch;
import io.eve.protocol.Message;
import io.eve.verify.primarybackup.PrimaryBackupConfig;
import io.eve.verify.primarybackup.WitnessStore;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * One simulated run of a two-replica primary-backup cluster and its clients, driven by one seed. A fault
 * phase injects what the {@link Faults} profile allows; then the network heals, crashed replicas come
 * back, and the run drains: every client finishes its request in flight and two more, and both replicas
 * converge. Invariants are checked after every event (see {@link Invariants} and {@link SimClient}), and
 * the register clients' history for linearizability at the end ({@link SharedRegisters}); the first
 * violation ends the run with a {@link SimulationFailure}.
 *
 * <p>Determinism: one {@link SplittableRandom} seeded once, split in a fixed order for the network, the
 * faults, the stage timings and each replica incarnation's batch seeds; simulated time only; ordered
 * collections wherever something is iterated. Single-threaded.
 */
final class Simulation implements World {
    static final long MS = 1_000_000L;
    static final int CLIENT_BASE = 100;
    private static final int[] NODES = {0, 1};
    private static final int WITNESS = 2;
    private static final long HEARTBEAT_NANOS = 20 * MS;
    private static final long FAILURE_TIMEOUT_NANOS = 200 * MS;
    private static final long CLIENT_TIMEOUT_NANOS = 60 * MS;
    private static final long LIVENESS_BOUND_NANOS = 3_000 * MS;
    private static final long WALL_EPOCH_MILLIS = 1_700_000_000_000L;
    private static final long MAX_EVENTS = 1_000_000L;

    /**
     * How long faults are injected and which clients run: {@code clients} with a counter each, and
     * {@code registerClients} sharing a few keys as registers ({@link SharedRegisters}). {@code staleGets}
     * runs a deliberately broken application whose gets answer the value before the last write (to show
     * that the linearizability check fails).
     */
    record Settings(
            long faultPhaseNanos,
            int clients,
            int registerClients,
            boolean verbose,
            boolean staleGets,
            boolean pipelinedAgreement) {
        Settings(long faultPhaseNanos, int clients, int registerClients, boolean verbose, boolean staleGets) {
            this(faultPhaseNanos, clients, registerClients, verbose, staleGets, false);
        }

        Settings withRegisterClients(int count) {
            return new Settings(faultPhaseNanos, clients, count, verbose, staleGets, pipelinedAgreement);
        }

        Settings withStaleGets() {
            return new Settings(faultPhaseNanos, clients, registerClients, verbose, true, pipelinedAgreement);
        }

        /** The quorum profiles with {@code agreement.pipelined} on or off (docs/quorum.md, "Pipelined agreement"). */
        Settings withPipelinedAgreement(boolean on) {
            return new Settings(faultPhaseNanos, clients, registerClients, verbose, staleGets, on);
        }
    }

    /**
     * What a run did, for the runner's summary: {@code checked} operations went through the
     * linearizability check, and the register clients gave up on {@code abandoned} requests.
     */
    record Outcome(
            long seed,
            long events,
            long simulatedMillis,
            long acknowledged,
            long checked,
            long abandoned,
            int crashes,
            int divergences) {}

    private final long seed;
    private final String profile;
    private final Faults faults;
    /** Profile {@code asymmetric}: the replicas' link is cut one way at a time. */
    private final boolean asymmetric;

    /**
     * Profile {@code disk-loss}: a crashed replica restarts from its disk, which may have lost the unsynced
     * suffix ({@code storage.sync=interval}) or be refused as corrupt (then it restarts empty).
     */
    private final boolean diskLoss;
    /** Profile {@code holder-crash}: the holder of the solo grant crashes and restarts from its disk. */
    private final boolean holderCrash;

    private int holderCrashes;

    private final Settings settings;
    private final SplittableRandom root;
    private final SplittableRandom faultRandom;
    private final SplittableRandom stageRandom;
    private final EventQueue queue = new EventQueue();
    private final EventLog log;
    private final SimNetwork network;
    private final Invariants invariants = new Invariants(this);
    private final SimReplica[] replicas = new SimReplica[2];
    private final int[] incarnations = new int[2];
    private SimClients clients;
    private final int pipelineDepth;
    private final int maxBatchSize;
    private final long maxBatchDelayNanos;
    private String violation;
    private Throwable violationCause;
    private boolean healed;
    private long healAt;
    private long lastCorruptionAt = Long.MIN_VALUE / 2;
    private int crashes;
    private int divergences;
    /** The witness (profiles with one), and its disk if the seed gave it one (empty: it rebuilds from reports). */
    private SimWitness witness;

    private Optional<WitnessStore> witnessDisk = Optional.empty();
    private int witnessIncarnations;
    /** Until when the one long fault in progress lasts: no other fault starts before. */
    private long longFaultUntil;

    Simulation(long seed, String profile, Settings settings) {
        this.seed = seed;
        this.profile = profile;
        this.faults = Faults.named(profile);
        this.asymmetric = profile.equals("asymmetric");
        this.diskLoss = profile.equals("disk-loss");
        this.holderCrash = profile.equals("holder-crash");
        this.settings = settings;
        this.root = new SplittableRandom(seed);
        this.log = new EventLog(60, settings.verbose());
        this.network = new SimNetwork(this, root.split(), faults);
        this.faultRandom = root.split();
        this.stageRandom = root.split();
        this.pipelineDepth = 1 + root.nextInt(4);
        this.maxBatchSize = 1 + root.nextInt(8);
        this.maxBatchDelayNanos = root.nextLong(3 * MS);
    }

    Outcome run() {
        log(String.format(
                "seed %d, profile %s: pipeline %d, batch %d, delay %d us; %s",
                seed, profile, pipelineDepth, maxBatchSize, maxBatchDelayNanos / 1000, network.describe()));
        if (faults.witness()) {
            witnessDisk = faultRandom.nextBoolean() ? Optional.of(new SimWitness.Disk()) : Optional.empty();
            startWitness();
        }
        if (faults.lateStart()) {
            int late = NODES[faultRandom.nextInt(2)];
            long after = 2 * FAILURE_TIMEOUT_NANOS + faultRandom.nextLong(8 * FAILURE_TIMEOUT_NANOS);
            int early = late == NODES[0] ? NODES[1] : NODES[0];
            startReplica(early, false);
            log("node " + late + " comes up " + after / MS + " ms late");
            queue.after(after, "late start of node " + late, () -> startReplica(late, false));
            longFaultUntil = after + 3 * FAILURE_TIMEOUT_NANOS;
        } else {
            for (int node : NODES) {
                startReplica(node, false);
            }
        }
        clients = new SimClients(this, settings, NODES, root, 0);
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
                runEvent(event);
            }
            if (violation == null && healed && now() - healAt > LIVENESS_BOUND_NANOS) {
                fail("liveness: not drained " + LIVENESS_BOUND_NANOS / MS + " ms after the faults stopped: "
                        + drainReport());
            }
            if (violation == null && events > MAX_EVENTS) {
                fail("more than " + MAX_EVENTS + " events: " + drainReport());
            }
            if (violation == null && healed && drained()) {
                checkFinalState();
            }
            if (violation != null) {
                throw new SimulationFailure(seed, profile, settings, violation, log.tail(), violationCause);
            }
            if (healed && drained()) {
                return new Outcome(
                        seed,
                        events,
                        now() / MS,
                        clients.acknowledged(),
                        clients.checked(),
                        clients.abandoned(),
                        crashes,
                        divergences);
            }
        }
    }

    private void runEvent(EventQueue.Event event) {
        try {
            event.action().run();
        } catch (RuntimeException e) {
            fail("unexpected exception in '" + event.what() + "': " + e, e);
        }
    }

    // ---- what the parts use ----------------------------------------------------------------------

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

    Invariants invariants() {
        return invariants;
    }

    @Override
    public long failureTimeoutNanos() {
        return FAILURE_TIMEOUT_NANOS;
    }

    @Override
    public long clientTimeoutNanos() {
        return CLIENT_TIMEOUT_NANOS;
    }

    @Override
    public boolean isReplica(int id) {
        return id == NODES[0] || id == NODES[1] || (witness != null && id == WITNESS);
    }

    /** Simulated time the stage spends on a batch: a fixed part plus a random cost per request. */
    long executeNanos(Batch batch) {
        return 100_000L + batch.size() * (20_000L + stageRandom.nextLong(180_000L));
    }

    /** The hop from the stage thread back to the protocol thread. */
    long protocolHopNanos() {
        return stageRandom.nextLong(20_000L);
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
    public void deliver(int from, int to, Message message) {
        if (witness != null && to == WITNESS) {
            if (witness.alive()) {
                witness.onMessage(from, message);
            } else {
                log("lost (the witness is down) " + from + "->" + to + " " + message);
            }
        } else if (isReplica(to)) {
            SimReplica replica = replicas[to];
            if (replica == null || !replica.alive()) {
                log("lost (node " + to + " is down) " + from + "->" + to + " " + message);
            } else {
                replica.onMessage(from, message);
            }
        } else {
            clients.byId(to).onMessage(from, message);
        }
    }

    @Override
    public void onCorruptedToken() {
        lastCorruptionAt = now();
    }

    void onCorrupted(SimReplica replica, long seq) {
        lastCorruptionAt = now();
        log(replica.name() + " executed batch " + seq + " wrongly (injected divergence)");
    }

    // ---- replicas and faults ---------------------------------------------------------------------

    private void startReplica(int node, boolean joining) {
        startReplica(node, joining, Optional.empty());
    }

    private void startReplica(int node, boolean joining, Optional<SimReplica.Disk> disk) {
        PrimaryBackupConfig config = PrimaryBackupConfig.of(NODES[0], NODES[1], node)
                .withTimeouts(HEARTBEAT_NANOS, FAILURE_TIMEOUT_NANOS)
                .withBatching(pipelineDepth, maxBatchSize, maxBatchDelayNanos);
        if (faults.witness()) {
            config = config.withWitness(WITNESS);
        }
        SplittableRandom batchSeeds = root.split();
        SimReplica replica =
                new SimReplica(this, node, ++incarnations[node], joining, config, batchSeeds::nextLong, disk);
        replica.app.staleGets = settings.staleGets();
        replicas[node] = replica;
        log("start " + replica.name() + (joining ? " (joining)" : "")
                + disk.map(d -> " from its disk at batch " + d.seq()).orElse(""));
        replica.start();
    }

    private void startWitness() {
        witness = new SimWitness(this, WITNESS, ++witnessIncarnations, NODES, witnessDisk, root.split());
        log("start " + witness.name() + (witnessDisk.isPresent() ? " (with a disk)" : " (no disk)"));
        witness.start();
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
        if (holderCrash && holderCrashes < 2) {
            for (SimReplica replica : replicas) {
                if (replica != null
                        && replica.alive()
                        && !replica.paused()
                        && replica.machine.isPrimary()
                        && replica.machine.soloHeld()) {
                    crashHolder(replica);
                    return;
                }
            }
        }
        if (now() < longFaultUntil) {
            return;
        }
        int kind = faultRandom.nextInt(faults.longFaults() ? 12 : faults.clockJumps() ? 8 : 6);
        if (kind >= 8) {
            injectLongFault(kind);
            return;
        }
        if (kind == 0 && witness != null && inService() && faultRandom.nextInt(3) == 0) {
            long downFor = 20 * MS + faultRandom.nextLong(400 * MS);
            log("fault: crash " + witness.name() + ", restart in " + downFor / MS + " ms");
            witness.crash();
            queue.after(downFor, "restart the witness", this::startWitness);
        } else if (kind == 0 && faults.pairRestarts() && inService() && faultRandom.nextBoolean()) {
            restartPairFromDisks();
        } else if (kind == 0 && faults.crashes() && inService()) {
            crash(NODES[faultRandom.nextInt(2)]);
        } else if (kind == 1 && faults.divergence() && inService()) {
            diverge(NODES[faultRandom.nextInt(2)]);
        } else if (kind == 2 && faults.divergence() && inService()) {
            int count = 1 + faultRandom.nextInt(2);
            log("fault: corrupt the next " + count + " tokens in flight");
            network.corruptTokens(count);
        } else if (kind == 3 && faults.shortPartitions() && asymmetric) {
            long nanos = MS + faultRandom.nextLong(FAILURE_TIMEOUT_NANOS / 3);
            int from = NODES[faultRandom.nextInt(2)];
            int to = from == NODES[0] ? NODES[1] : NODES[0];
            log("fault: cut the link from node " + from + " to node " + to + " (one way) for " + nanos / 1000 + " us");
            network.cutOneWay(from, to, nanos);
        } else if (kind == 3 && faults.shortPartitions()) {
            long nanos = MS + faultRandom.nextLong(FAILURE_TIMEOUT_NANOS / 3);
            log("fault: cut the replicas' link for " + nanos / 1000 + " us");
            network.cut(NODES[0], NODES[1], nanos);
        } else if (kind == 4 && faults.clientFaults()) {
            int client = CLIENT_BASE + faultRandom.nextInt(clients.size());
            int node = NODES[faultRandom.nextInt(2)];
            long nanos = 10 * MS + faultRandom.nextLong(300 * MS);
            log("fault: cut client " + client + " from node " + node + " for " + nanos / MS + " ms");
            network.cut(client, node, nanos);
        } else if (kind == 5) {
            long nanos = 10 * MS + faultRandom.nextLong(100 * MS);
            log("fault: slow replica link for " + nanos / MS + " ms");
            network.slowDown(nanos);
        } else if (kind == 6) {
            int node = NODES[faultRandom.nextInt(2)];
            long millis = faultRandom.nextLong(-3_600_000L, 3_600_000L);
            log("fault: step node " + node + "'s wall clock by " + millis + " ms");
            replicas[node].stepWallClock(millis);
        } else if (kind == 7 && inService()) {
            SimReplica primary = replicas[0].machine.isPrimary() ? replicas[0] : replicas[1];
            long nanos = MS + faultRandom.nextLong(2 * FAILURE_TIMEOUT_NANOS);
            log("fault: " + primary.name() + "'s monotonic clock jumps ahead " + nanos / MS + " ms");
            primary.jumpClock(nanos);
        }
    }

    /**
     * One fault longer than every timeout, while the pair is in service: a pause of a replica, a cut between
     * the replicas or between a replica and the witness, or a replica's monotonic clock jumping ahead.
     */
    private void injectLongFault(int kind) {
        if (!inService()) {
            return;
        }
        long nanos = FAILURE_TIMEOUT_NANOS * 3 / 2 + faultRandom.nextLong(6 * FAILURE_TIMEOUT_NANOS);
        int node = NODES[faultRandom.nextInt(2)];
        SimReplica replica = replicas[node];
        String role = replica.machine.isPrimary() ? "primary" : "backup";
        longFaultUntil = now() + nanos + 4 * FAILURE_TIMEOUT_NANOS;
        if (kind == 8) {
            boolean timerFirst = faultRandom.nextBoolean();
            log("fault: pause " + replica.name() + " (" + role + ") for " + nanos / MS + " ms"
                    + (timerFirst ? ", its timer fires first on resume" : ""));
            replica.pause();
            queue.after(nanos, "resume " + replica.name(), () -> replica.resume(timerFirst));
        } else if (kind == 9) {
            log("fault: cut the replicas' link for " + nanos / MS + " ms");
            network.cut(NODES[0], NODES[1], nanos);
        } else if (kind == 10 && witness != null) {
            log("fault: cut node " + node + " (" + role + ") from the witness for " + nanos / MS + " ms");
            network.cut(node, WITNESS, nanos);
        } else if (kind == 10) {
            log("fault: cut the replicas' link for " + nanos / MS + " ms");
            network.cut(NODES[0], NODES[1], nanos);
        } else {
            log("fault: " + replica.name() + " (" + role + ")'s monotonic clock jumps ahead " + nanos / MS + " ms");
            replica.jumpClock(nanos);
        }
    }

    /**
     * Both replicas run, hold the state, agree on the view and the primary verifies with the backup, and
     * no injected divergence is unresolved. Only then may one replica fail: two overlapping failures (a
     * crash while the peer still catches up, or a crash right after a corrupted execution) lose
     * acknowledged work in any two-replica protocol, so they are not faults this protocol claims to mask.
     */
    private boolean inService() {
        for (SimReplica replica : replicas) {
            if (replica == null
                    || !replica.alive()
                    || !replica.caughtUp()
                    || replica.app.corruptNext > 0
                    || now() - replica.startedAt < 3 * FAILURE_TIMEOUT_NANOS) {
                return false;
            }
        }
        SimReplica primary = replicas[0].machine.isPrimary() ? replicas[0] : replicas[1];
        // A primary still holding the right to commit alone has not seen its backup catch up yet: the last
        // fault is not over. A witness that is down without a disk could not rebuild its state after a crash.
        return replicas[0].machine.view() == replicas[1].machine.view()
                && primary.machine.isPrimary()
                && primary.machine.peerAlive()
                && !primary.machine.soloHeld()
                && !replicas[0].paused()
                && !replicas[1].paused()
                && now() >= longFaultUntil
                && (witness == null || (witness.alive() && witness.state().isPresent()))
                && !network.corruptingTokens()
                && now() - lastCorruptionAt > 2 * FAILURE_TIMEOUT_NANOS;
    }

    private void crash(int node) {
        if (diskLoss) {
            crashWithDisk(node);
            return;
        }
        SimReplica replica = replicas[node];
        replica.crash();
        crashes++;
        boolean fast = faults.fastRestarts() && faultRandom.nextBoolean();
        long downFor = fast
                ? 5 * MS + faultRandom.nextLong(FAILURE_TIMEOUT_NANOS / 2)
                : FAILURE_TIMEOUT_NANOS + 50 * MS + faultRandom.nextLong(500 * MS);
        log("fault: crash " + replica.name() + " (primary: " + replica.machine.isPrimary() + "), restart in "
                + downFor / MS + " ms");
        queue.after(downFor, "restart node " + node, () -> startReplica(node, true));
    }

    /**
     * One replica's machine fails while its peer serves, and it restarts from what its disk holds: everything
     * it committed ({@code sync=batch}), the state of its last force without the suffix after it
     * ({@code sync=interval}), or nothing (a corrupt file: it refuses to start naming the file, the operator moves
     * the directory away, and it starts empty). Its peer has every acknowledged write, so none may be lost.
     */
    /**
     * Whether replicas keep what a disk forced only on an interval holds: profile {@code disk-loss}
     * ({@code storage.sync=interval}), and the whole-pair restarts, where a backup's disk holds only its last
     * interval force (decision 0041: only the replica that releases a batch's replies forces for it at once).
     */
    boolean keepsSyncedDisks() {
        return diskLoss || faults.pairRestarts();
    }

    private void crashWithDisk(int node) {
        SimReplica replica = replicas[node];
        Optional<SimReplica.Disk> current = replica.disk();
        Optional<SimReplica.Disk> synced = replica.syncedDisk();
        replica.crash();
        crashes++;
        int kind = faultRandom.nextInt(3);
        Optional<SimReplica.Disk> disk = kind == 0 ? current : kind == 1 ? synced : Optional.empty();
        String what = kind == 0
                ? "everything it committed (sync=batch)"
                : kind == 1 ? "its last force, the suffix after it lost (sync=interval)" : "a corrupt file: refused";
        long downFor = FAILURE_TIMEOUT_NANOS + 50 * MS + faultRandom.nextLong(500 * MS);
        log("fault: crash " + replica.name() + " (primary: " + replica.machine.isPrimary() + ", committed "
                + current.map(SimReplica.Disk::seq).orElse(0L) + "), its disk holds " + what + "; restart from batch "
                + disk.map(SimReplica.Disk::seq).orElse(0L) + " in " + downFor / MS + " ms");
        queue.after(downFor, "restart node " + node, () -> startReplica(node, true, disk));
    }

    /**
     * Both replicas crash at once and restart, one after the other, from their disks (docs/primary-backup.md,
     * "Whole-cluster restart"): the primary's holds the state of its last committed batch (it forced each batch
     * before releasing its replies), the backup's only what its last interval force covered, possibly nothing
     * (decision 0041: a replica that releases no replies forces its log on the interval).
     */
    private void restartPairFromDisks() {
        long downFor = 5 * MS + faultRandom.nextLong(FAILURE_TIMEOUT_NANOS);
        for (int node : NODES) {
            SimReplica replica = replicas[node];
            boolean primary = replica.machine.isPrimary();
            Optional<SimReplica.Disk> disk = primary ? replica.disk() : replica.syncedDisk();
            replica.crash();
            crashes++;
            long after = downFor + faultRandom.nextLong(FAILURE_TIMEOUT_NANOS / 2);
            log("fault: crash " + replica.name() + " (primary: " + primary + ") with the pair,"
                    + " restart from its disk (" + (primary ? "committed " : "last interval force at ")
                    + disk.map(SimReplica.Disk::seq).orElse(0L) + ") in "
                    + after / MS + " ms");
            queue.after(after, "restart node " + node + " from its disk", () -> startReplica(node, true, disk));
        }
    }

    /**
     * Profile {@code holder-crash}: the primary crashes while it holds the witness's solo grant (a long fault
     * made its backup look silent, and it may have committed batches alone), and restarts from a disk that holds
     * everything it committed ({@code storage.sync=batch}). Its history is then longer than its peer's, and it
     * must go on from it (docs/primary-backup.md, "A holder that restarts"): no acknowledged write may be lost,
     * and the pair must serve again once the faults stop.
     */
    private void crashHolder(SimReplica holder) {
        Optional<SimReplica.Disk> disk = holder.disk();
        holder.crash();
        crashes++;
        holderCrashes++;
        long downFor = 20 * MS + faultRandom.nextLong(2 * FAILURE_TIMEOUT_NANOS);
        log("fault: crash " + holder.name() + ", the holder of the witness's solo grant (committed "
                + disk.map(SimReplica.Disk::seq).orElse(0L) + "), restart from its disk (sync=batch) in "
                + downFor / MS + " ms");
        queue.after(downFor, "restart node " + holder.node, () -> startReplica(holder.node, true, disk));
    }

    private void diverge(int node) {
        SimReplica replica = replicas[node];
        // Two wrong executions in a row on the primary would be committed: with two replicas the primary's
        // state is authoritative (Eve §6.2), so only the backup may get a double dose.
        int count = replica.machine.isPrimary() ? 1 : 1 + faultRandom.nextInt(2);
        replica.app.corruptNext = count;
        divergences++;
        log("fault: " + replica.name() + " will execute its next " + count + " adds wrongly");
    }

    private void heal() {
        healed = true;
        healAt = now();
        network.heal();
        for (SimReplica replica : replicas) {
            if (replica != null && replica.paused()) {
                log("heal: resume " + replica.name());
                replica.resume(false);
            }
        }
        log("heal: no more faults; clients finish and send two more requests each");
        clients.onHeal(2);
    }

    // ---- the end of a run ------------------------------------------------------------------------

    private boolean drained() {
        if (!clients.done()) {
            return false;
        }
        for (SimReplica replica : replicas) {
            if (replica == null || !replica.alive() || !replica.caughtUp() || !replica.stageIdle()) {
                return false;
            }
            if (replica.stage.stableSeq() != replica.stage.executedSeq()) {
                return false;
            }
        }
        SimReplica a = replicas[0];
        SimReplica b = replicas[1];
        return a.machine.view() == b.machine.view()
                && a.machine.isPrimary() != b.machine.isPrimary()
                && a.machine.committed() == b.machine.committed()
                && a.stage.stableSeq() == b.stage.stableSeq()
                && (a.machine.isPrimary() ? a : b).machine.peerAlive();
    }

    private String drainReport() {
        StringBuilder report = new StringBuilder(clients.pending());
        for (SimReplica replica : replicas) {
            if (replica == null) {
                report.append("a replica has not started; ");
                continue;
            }
            report.append(String.format(
                    "%s alive %s primary %s view %d committed %d, stage executed %d stable %d, peerAlive %s; ",
                    replica.name(),
                    replica.alive(),
                    replica.machine.isPrimary(),
                    replica.machine.view(),
                    replica.machine.committed(),
                    replica.stage.executedSeq(),
                    replica.stage.stableSeq(),
                    replica.machine.peerAlive()));
        }
        return report.toString();
    }

    /**
     * Invariant 4 at the end: each client's counter holds exactly its acknowledged requests, on both
     * replicas; and what the register clients saw of the shared keys is linearizable.
     */
    private void checkFinalState() {
        for (SimReplica replica : replicas) {
            String mismatch = clients.counterMismatch(replica.name(), replica.app::counter);
            if (mismatch != null) {
                fail(mismatch);
            }
        }
        List<String> violations = clients.linearizabilityViolations();
        if (!violations.isEmpty()) {
            fail("linearizability: " + String.join("\n", violations));
        }
        long seq = replicas[0].stage.stableSeq();
        if (!replicas[0]
                .stage
                .state()
                .rootAt(seq)
                .equals(replicas[1].stage.state().rootAt(seq))) {
            fail("the replicas' final states differ at version " + seq);
        }
    }
}
