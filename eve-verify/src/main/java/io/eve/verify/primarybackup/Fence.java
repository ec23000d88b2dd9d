package io.eve.verify.primarybackup;

import io.eve.protocol.Message;

/**
 * Who may commit without the peer's matching token (docs/primary-backup.md, "Fencing with a witness"). A
 * primary releases a reply only for a batch whose token the backup matched, or while it holds the right to
 * commit alone ("solo") in its current view; a backup takes over only with that right for the new view.
 * {@link TimingFence} grants at once (safety then rests on timing); {@link WitnessFence} asks the witness.
 *
 * <p>Sans-IO like {@link PrimaryBackup}, which calls it on its protocol thread.
 */
public interface Fence {

    /** What this node knows of its request for the right to commit alone in a view. */
    enum Solo {
        /** Granted: this node may commit alone in that view until it gives the right back. */
        HELD,
        /** Asked, not answered yet (the request is repeated until it is). */
        PENDING,
        /** Refused: {@link #refusal()} says who holds the fence; asking again starts a new request. */
        REFUSED
    }

    /** Asks (or keeps asking) for the right to commit alone in {@code view}, and says what is known of it. */
    Solo trySolo(long view, long now);

    /** Whether this node holds the right to commit alone in {@code view}. */
    boolean holdsSolo(long view);

    /**
     * The holder's peer caught up: this node stops committing alone at once and tells the fence, so that the
     * peer may take over again if this node fails.
     */
    void releaseSolo(long view, long now);

    /**
     * This node restarted, joins, and holds no more than its in-step peer committed: any right to commit alone
     * that the fence still holds for it from an earlier life (in {@code view}, or in whatever view the fence
     * answers with) is given back, so that the peer, which holds every batch this node committed, may take
     * over and serve it (docs/primary-backup.md, "A holder that restarts"). So does a grant this joiner was
     * given and never used (asked while the peer had committed less). Idempotent; a fence that grants on timing
     * alone holds nothing to give back.
     */
    void giveBack(long view, long now);

    /**
     * Whether an outside party grants the right to commit alone, so that of two replicas asking at once at most
     * one holds it (the witness); false for a fence that grants on timing alone.
     */
    boolean arbitrated();

    /** The fence's state as the last refusal reported it. Only after {@link Solo#REFUSED}. */
    Message.FenceAnswer refusal();

    /** A message from the witness. */
    void onMessage(Message message, long now);

    /** Periodic work: repeats an unanswered request, reports this node's fence state in {@code view}. */
    void onTick(long view, long now);

    /** Whether messages from {@code node} are the fence's. */
    boolean isWitness(int node);
}
