package io.eve.verify.primarybackup;

import io.eve.batch.Batcher;
import io.eve.protocol.Message;
import io.eve.verify.diagnosis.DigestReports;

/**
 * What both roles of one replica share and hand from one to the next: the view, epoch and last committed
 * batch, what is known of the peer's liveness, the clock of the last input, the batcher (requests it holds
 * survive a change of role), the fence and the actions. Confined to the protocol thread.
 */
final class PairContext {
    final PrimaryBackupConfig config;
    final Actions actions;
    final int peer;
    final String name;
    final Fence fence;
    final Batcher batcher;

    long view;
    long epoch;
    long committed;
    /**
     * Whether the batches this node recovered from its disk include every batch it acknowledged ({@code
     * storage.sync=batch}): only then may a joiner go on from its own history against an in-step peer.
     */
    boolean recoveredEveryAcknowledged;
    /** The time and wall clock of the last input. */
    long clock;

    long wall;
    long lastHeard;
    boolean heardPeer;
    long lastHeartbeatSent;
    long rollbacks;
    long transfers;
    /** Why this replica last moved to another view, as its log line says it ("" until it first does). */
    String lastViewChange = "";
    /** The peer's object digests of a batch run sequentially, and the diagnoses made with them. */
    final DigestReports reports = new DigestReports();

    private Role role;

    PairContext(PrimaryBackupConfig config, Actions actions, Fence fence, Batcher batcher, long committed) {
        this.config = config;
        this.actions = actions;
        this.peer = config.peer();
        this.name = "node " + config.self();
        this.fence = fence;
        this.batcher = batcher;
        this.committed = committed;
    }

    Role role() {
        return role;
    }

    /** Moves this replica to view {@code newView} for the reason {@code why} (what {@code /status} reports). */
    void enterView(long newView, String why) {
        view = newView;
        lastViewChange = why;
    }

    /** From now on {@code next} handles every input. */
    void become(Role next) {
        role = next;
    }

    void send(Message message) {
        actions.send(peer, message);
    }

    int self() {
        return config.self();
    }

    int primaryOf(long someView) {
        return config.primaryOf(someView);
    }

    /** The first view after {@code above} whose primary is this replica. */
    long nextOwnView(long above) {
        long target = above + 1;
        while (config.primaryOf(target) != config.self()) {
            target++;
        }
        return target;
    }

    /** How long the peer may be silent before it counts as failed. */
    long silenceLimit() {
        return heardPeer
                ? config.failureTimeoutNanos()
                : PrimaryBackup.STARTUP_GRACE_TIMEOUTS * config.failureTimeoutNanos();
    }

    boolean peerSilent() {
        return clock - lastHeard > silenceLimit();
    }

    /** Moves to a later view or epoch that the primary announced. */
    void adopt(long newView, long newEpoch) {
        if (newView > view || newEpoch > epoch) {
            view = newView;
            epoch = newEpoch;
        }
    }

    /** Whether ({@code otherView}, {@code otherEpoch}) is before this replica's view and epoch. */
    boolean isStale(long otherView, long otherEpoch) {
        return otherView < view || (otherView == view && otherEpoch < epoch);
    }

    /** Whether ({@code otherView}, {@code otherEpoch}) is after this replica's view and epoch. */
    boolean isNewer(long otherView, long otherEpoch) {
        return otherView > view || otherEpoch > epoch;
    }
}
