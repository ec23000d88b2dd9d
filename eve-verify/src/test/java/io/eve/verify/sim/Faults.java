package io.eve.verify.sim;

/**
 * Which faults a run may inject; the seed picks when and how often within these bounds. The profiles
 * separate what the protocol promises to survive from what goes beyond its assumptions.
 *
 * @param replicaDropRate the highest loss rate on the link between the replicas (the seed picks the rate)
 * @param replicaReorder whether messages between the replicas may overtake each other
 * @param replicaDuplicateRate the highest rate of duplicated messages between the replicas
 * @param shortPartitions whether the replicas' link may fail for less than the failure timeout
 * @param clientFaults whether client links lose, duplicate and reorder messages and get partitioned
 * @param crashes whether a replica may crash (and restart with fresh state, joining)
 * @param fastRestarts whether a crashed replica may come back before its peer noticed it had gone
 * @param divergence whether one replica's execution may go wrong ({@code corruptNext}, corrupt tokens)
 * @param clockJumps whether replicas' wall clocks may be stepped either way and the primary's monotonic
 *     clock may jump ahead (the timing-based profile's clocks misbehaving within what it can take)
 * @param longFaults faults of one process longer than every timeout, one at a time: a replica paused
 *     (it receives nothing and does nothing, then resumes with its queued messages), the replicas' link or a
 *     replica's link to the witness cut, either replica's monotonic clock jumping past the failure timeout
 * @param lateStart whether one replica comes up seconds after the other
 * @param witness whether the pair is fenced by a simulated witness (otherwise the timing fence)
 * @param pairRestarts whether both replicas may crash at once and restart from their disks (each keeping the
 *     state of its last committed batch), the whole-cluster restart
 */
record Faults(
        double replicaDropRate,
        boolean replicaReorder,
        double replicaDuplicateRate,
        boolean shortPartitions,
        boolean clientFaults,
        boolean crashes,
        boolean fastRestarts,
        boolean divergence,
        boolean clockJumps,
        boolean longFaults,
        boolean lateStart,
        boolean witness,
        boolean pairRestarts) {

    /** The faults without whole-cluster restarts. */
    Faults(
            double replicaDropRate,
            boolean replicaReorder,
            double replicaDuplicateRate,
            boolean shortPartitions,
            boolean clientFaults,
            boolean crashes,
            boolean fastRestarts,
            boolean divergence,
            boolean clockJumps,
            boolean longFaults,
            boolean lateStart,
            boolean witness) {
        this(
                replicaDropRate,
                replicaReorder,
                replicaDuplicateRate,
                shortPartitions,
                clientFaults,
                crashes,
                fastRestarts,
                divergence,
                clockJumps,
                longFaults,
                lateStart,
                witness,
                false);
    }

    /**
     * What the protocol is built for: a FIFO, lossless link between the replicas with variable delay,
     * crashes detected by the failure timeout, one-replica divergence, and lossy clients.
     */
    static Faults reliableLinks() {
        return new Faults(0, false, 0, false, true, true, false, true, false, false, false, false, false);
    }

    /** The transport's full contract between replicas: FIFO, but a message may be lost (Transport javadoc). */
    static Faults lossyLinks() {
        return new Faults(0.05, false, 0, true, true, true, false, true, false, false, false, false, false);
    }

    /** A restarted replica returns before its peer's failure timeout expired. */
    static Faults quickReturns() {
        return new Faults(0, false, 0, false, true, true, true, true, false, false, false, false, false);
    }

    /** Beyond the transport contract: replica messages reordered and duplicated. */
    static Faults unorderedLinks() {
        return new Faults(0, true, 0.05, false, true, true, false, true, false, false, false, false, false);
    }

    /**
     * Clocks that misbehave: wall clocks stepped by up to an hour either way on either replica (they only
     * feed batch timestamps, which the primary picks and the backup adopts) and the primary's monotonic
     * clock jumping ahead by up to two failure timeouts (it then thinks the backup silent and goes on
     * alone until it hears it again). A jump of the backup's monotonic clock past the failure timeout is
     * a split brain by design (docs/primary-backup.md) and is not injected.
     */
    static Faults jumpingClocks() {
        return new Faults(0, false, 0, false, true, true, false, true, true, false, false, false, false);
    }

    /**
     * Beyond the timing assumption: faults of one process longer than the failure timeout (pauses,
     * partitions, clock jumps of either replica) on a FIFO link, with crashes, divergence and lossy clients;
     * safe only with the witness (docs/primary-backup.md, "Fencing with a witness").
     */
    static Faults longFaults(boolean witness) {
        return new Faults(0, false, 0, false, true, true, false, true, false, true, false, witness, false);
    }

    /** One replica starts seconds after the other, then the faults of {@link #reliableLinks()}. */
    static Faults lateStart(boolean witness) {
        return new Faults(0, false, 0, false, true, true, false, true, false, false, true, witness, false);
    }

    /** Crashes, divergence and lossy links, fenced by the witness (which may itself crash and restart). */
    static Faults witnessed() {
        return new Faults(0.05, false, 0, true, true, true, false, true, false, false, false, true, false);
    }

    /**
     * Both replicas crash at once and restart from their disks, besides the faults of {@link #reliableLinks()}:
     * the one with the longer committed history takes over (docs/primary-backup.md, "Whole-cluster restart").
     */
    static Faults pairRestarts(boolean witness) {
        return new Faults(0, false, 0, false, true, true, false, true, false, false, false, witness, true);
    }

    static Faults named(String name) {
        switch (name) {
            case "pair-restart":
                return pairRestarts(true);
            case "pair-restart-no-witness":
                return pairRestarts(false);
            case "disk-loss": // pair restarts, and single crashes restarting from a damaged disk (Simulation)
                return pairRestarts(true);
            case "long-faults":
            case "holder-crash": // and the holder of the solo grant crashes, restarting from its disk (Simulation)
                return longFaults(true);
            case "long-faults-no-witness":
                return longFaults(false);
            case "late-start":
                return lateStart(true);
            case "late-start-no-witness":
                return lateStart(false);
            case "witness":
                return witnessed();
            case "reliable":
                return reliableLinks();
            case "lossy":
            case "asymmetric": // lossy, and the replicas' link cut one way (Simulation)
                return lossyLinks();
            case "fast-restart":
                return quickReturns();
            case "unordered":
                return unorderedLinks();
            case "clock-jump":
                return jumpingClocks();
            default:
                throw new IllegalArgumentException("unknown fault profile '" + name
                        + "'; expected reliable, lossy, fast-restart, unordered, clock-jump, witness, long-faults, holder-crash,"
                        + " long-faults-no-witness, late-start, late-start-no-witness, pair-restart,"
                        + " pair-restart-no-witness or disk-loss");
        }
    }
}
