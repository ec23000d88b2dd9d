package io.eve.verify.runtime;

import io.eve.Replica;

/**
 * What a node's protocol roles report, read on the protocol mailbox.
 *
 * @param role the node's role now
 * @param roles the roles in words ("primary", "execution replica + verifier", ...)
 * @param view the current view
 * @param committedSeq the last batch committed by the execution role (-1 without one)
 * @param verifiedSeq the last batch committed by the verifier role (-1 without one)
 * @param viewChanges view changes the verifier started (0 without one)
 * @param divergedObjects objects named as different in batches whose tokens still differed after sequential
 *     re-execution (the primary-backup primary, or the verifier)
 * @param lastViewChange why the verifier last started a view change, or why the primary-backup replica last moved
 *     to another view; "" if none since start (and for a witness)
 * @param countsInViewChanges whether the verifier's view changes count towards a new view (false while it rejoined
 *     without its state and holds no certificate covering its earlier lives' votes); true without a verifier
 */
public record RoleStatus(
        Replica.Role role,
        String roles,
        long view,
        long committedSeq,
        long verifiedSeq,
        long viewChanges,
        long divergedObjects,
        String lastViewChange,
        boolean countsInViewChanges) {}
